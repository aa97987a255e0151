import { ChatMessage } from '@svc/contracts';
import { UpstreamEndpoint } from '../../routing/upstream-endpoint';

/** The model server's own tokenizer, when the catalog names one (`engine.tokenize`). */
export type UpstreamTokenize = 'none' | 'vllm' | 'llama-cpp';

/**
 * Added to an upstream's count: its tokenizer renders the same chat template as its chat
 * completions, but a server version or a template detail (a BOS token, the generation prompt) can
 * differ by a few tokens. Settlement never charges past a hold, so the margin only decides
 * whether a request at the very edge of its credit is admitted.
 */
export const UPSTREAM_COUNT_MARGIN = { ratio: 0.02, tokens: 8 };
const TOKENIZE_TIMEOUT_MS = 2_000;

/**
 * A prompt's tokens as the model server counts them, plus the margin:
 * - `vllm`: its `POST /tokenize` (at the server's root, beside `/v1`) with the chat messages and
 *   the generation prompt, or with a raw prompt as its `/completions` tokenizes it (special tokens
 *   added);
 * - `llama-cpp`: llama.cpp server's `POST /apply-template` (the model's chat template, with the
 *   generation prompt), then `POST /tokenize` of that text; a raw prompt straight to `/tokenize`.
 * Null when it cannot say (an error, a timeout, or a message with non-text parts, which it would
 * not count as it serves them).
 */
export async function countOnUpstream(
  endpoint: UpstreamEndpoint,
  prompt: ChatMessage[] | string,
  kind: Exclude<UpstreamTokenize, 'none'>,
): Promise<number | null> {
  try {
    const count = typeof prompt === 'string' ? await countRaw(endpoint, prompt, kind) : await countChat(endpoint, prompt, kind);
    return count === null ? null : Math.ceil(count * (1 + UPSTREAM_COUNT_MARGIN.ratio)) + UPSTREAM_COUNT_MARGIN.tokens;
  } catch {
    return null;
  }
}

async function countRaw(endpoint: UpstreamEndpoint, prompt: string, kind: Exclude<UpstreamTokenize, 'none'>): Promise<number | null> {
  if (kind === 'vllm') {
    const reply = await post(endpoint, '/tokenize', { model: endpoint.config.model, prompt, add_special_tokens: true });
    return countOf((reply as { count?: unknown } | null)?.count);
  }
  const reply = await post(endpoint, '/tokenize', { content: prompt, add_special: true });
  const tokens = (reply as { tokens?: unknown } | null)?.tokens;
  return Array.isArray(tokens) ? tokens.length : null;
}

async function countChat(endpoint: UpstreamEndpoint, messages: ChatMessage[], kind: Exclude<UpstreamTokenize, 'none'>): Promise<number | null> {
  if (messages.some((m) => m.parts !== undefined)) return null;
  const plain = messages.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) }));
  if (kind === 'vllm') {
    const reply = await post(endpoint, '/tokenize', { model: endpoint.config.model, messages: plain, add_generation_prompt: true });
    return countOf((reply as { count?: unknown } | null)?.count);
  }
  const template = await post(endpoint, '/apply-template', { messages: plain });
  const prompt = (template as { prompt?: unknown } | null)?.prompt;
  return typeof prompt === 'string' ? countRaw(endpoint, prompt, kind) : null;
}

/** A JSON POST to the server's root (beside `/v1`); null unless it answers 200. */
async function post(endpoint: UpstreamEndpoint, path: string, body: unknown): Promise<unknown> {
  const root = new URL(endpoint.config.baseUrl).pathname.replace(/\/$/, '').replace(/\/v1$/, '');
  const res = await endpoint.pool.request({
    method: 'POST',
    path: `${root}${path}`,
    headers: { 'content-type': 'application/json', ...(endpoint.config.apiKey ? { authorization: `Bearer ${endpoint.config.apiKey}` } : {}) },
    body: JSON.stringify(body),
    headersTimeout: TOKENIZE_TIMEOUT_MS,
    bodyTimeout: TOKENIZE_TIMEOUT_MS,
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    return null;
  }
  return res.body.json();
}

const countOf = (count: unknown): number | null => (typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : null);
