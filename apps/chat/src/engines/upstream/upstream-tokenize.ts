import { ChatMessage } from '@svc/contracts';
import { UpstreamEndpoint } from '../../routing/upstream-endpoint';

/** The model server's own tokenizer, when the catalog names one (`engine.tokenize`). */
export type UpstreamTokenize = 'none' | 'vllm';

/**
 * Added to an upstream's count: its `/tokenize` renders the same chat template as its chat
 * completions, but a server version or a template detail (a BOS token, the generation prompt) can
 * differ by a few tokens. Settlement never charges past a hold, so the margin only decides
 * whether a request at the very edge of its credit is admitted.
 */
export const UPSTREAM_COUNT_MARGIN = { ratio: 0.02, tokens: 8 };
const TOKENIZE_TIMEOUT_MS = 2_000;

/**
 * A prompt's tokens as the model server counts them: vLLM's `POST /tokenize` (at the server's
 * root, beside `/v1`) with the chat messages and the generation prompt, plus the margin. Null when
 * it cannot say (an error, a timeout, or a message with non-text parts, which it would not count
 * as it serves them).
 */
export async function countOnUpstream(endpoint: UpstreamEndpoint, messages: ChatMessage[]): Promise<number | null> {
  if (messages.some((m) => m.parts !== undefined)) return null;
  const root = new URL(endpoint.config.baseUrl).pathname.replace(/\/$/, '').replace(/\/v1$/, '');
  try {
    const res = await endpoint.pool.request({
      method: 'POST',
      path: `${root}/tokenize`,
      headers: { 'content-type': 'application/json', ...(endpoint.config.apiKey ? { authorization: `Bearer ${endpoint.config.apiKey}` } : {}) },
      body: JSON.stringify({
        model: endpoint.config.model,
        messages: messages.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) })),
        add_generation_prompt: true,
      }),
      headersTimeout: TOKENIZE_TIMEOUT_MS,
      bodyTimeout: TOKENIZE_TIMEOUT_MS,
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return null;
    }
    const { count } = (await res.body.json()) as { count?: unknown };
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return null;
    return Math.ceil(count * (1 + UPSTREAM_COUNT_MARGIN.ratio)) + UPSTREAM_COUNT_MARGIN.tokens;
  } catch {
    return null;
  }
}
