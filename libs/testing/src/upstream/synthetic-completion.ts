/**
 * The fake upstream's deterministic, obviously synthetic output ("tok0 tok1 ..."), shaped like
 * OpenAI chat-completions objects, or legacy (raw-text) completions objects. Pure functions, so
 * the wire format is testable without a socket.
 */

export interface ChatRequest {
  model: string;
  messages: unknown[];
  stream: boolean;
  includeUsage: boolean;
  /** `max_completion_tokens`, else `max_tokens`; undefined when neither is a positive integer. */
  maxTokens?: number;
  tools?: unknown;
}

/** A legacy `POST /v1/completions` request: a raw prompt the model continues. */
export interface TextCompletionRequest {
  model: string;
  prompt: string;
  stream: boolean;
  includeUsage: boolean;
  maxTokens?: number;
  /** `logprobs: k`: the sampled token's log probability and k alternatives, per token. */
  logprobs?: number;
}

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = 'stop' | 'length';

/** Validates the parts of a request body the fake relies on; returns an error message when invalid. */
export function parseChatRequest(body: unknown): ChatRequest | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'The request body must be a JSON object.';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return "'model' is required.";
  if (!Array.isArray(b.messages) || b.messages.length === 0) return "'messages' must be a non-empty array.";
  const limit = [b.max_completion_tokens, b.max_tokens].find((v) => Number.isInteger(v) && (v as number) > 0) as number | undefined;
  const streamOptions = b.stream_options as { include_usage?: unknown } | undefined;
  return {
    model: b.model,
    messages: b.messages,
    stream: b.stream === true,
    includeUsage: streamOptions?.include_usage === true,
    maxTokens: limit,
    ...(b.tools !== undefined ? { tools: b.tools } : {}),
  };
}

/** Validates a legacy completions body (one text prompt); returns an error message when invalid. */
export function parseTextCompletionRequest(body: unknown): TextCompletionRequest | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'The request body must be a JSON object.';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return "'model' is required.";
  if (typeof b.prompt !== 'string') return "'prompt' must be a string.";
  if (b.echo === true || (typeof b.suffix === 'string' && b.suffix !== '')) return 'echo and suffix are not supported by this fake.';
  const limit = Number.isInteger(b.max_tokens) && (b.max_tokens as number) > 0 ? (b.max_tokens as number) : undefined;
  const streamOptions = b.stream_options as { include_usage?: unknown } | undefined;
  return {
    model: b.model,
    prompt: b.prompt,
    stream: b.stream === true,
    includeUsage: streamOptions?.include_usage === true,
    maxTokens: limit,
    ...(Number.isInteger(b.logprobs) ? { logprobs: b.logprobs as number } : {}),
  };
}

/** A raw prompt's tokens, counted as a chat message's content is (words, or UTF-8 bytes). */
export function countTextPrompt(prompt: string, by: 'words' | 'bytes'): number {
  return by === 'bytes' ? Buffer.byteLength(prompt, 'utf8') : countWords(prompt);
}

/** A rough prompt token count: whitespace-separated words in every text part of every message. */
export function countPromptWords(messages: unknown[]): number {
  return textsOf(messages).reduce((sum, text) => sum + countWords(text), 0);
}

/** The most tokens a byte-level tokenizer can make of a prompt: one per UTF-8 byte of its text and tools. */
export function countPromptBytes(messages: unknown[], tools: unknown): number {
  const text = textsOf(messages).reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8'), 0);
  return text + (tools === undefined ? 0 : Buffer.byteLength(JSON.stringify(tools), 'utf8'));
}

function textsOf(messages: unknown[]): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        const text = (part as { text?: unknown } | null)?.text;
        if (typeof text === 'string') texts.push(text);
      }
    }
  }
  return texts;
}

function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/** The i-th token's text: "tok0", " tok1", " tok2", ... */
export function tokenText(i: number): string {
  return i === 0 ? 'tok0' : ` tok${i}`;
}

export function completionText(tokens: number): string {
  let text = '';
  for (let i = 0; i < tokens; i++) text += tokenText(i);
  return text;
}

export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** A `chat.completion` object (non-streaming answer). */
export function completionBody(meta: CompletionMeta, tokens: number, finishReason: FinishReason, usage: Usage): object {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    system_fingerprint: 'fake-upstream',
    choices: [{ index: 0, message: { role: 'assistant', content: completionText(tokens), refusal: null }, logprobs: null, finish_reason: finishReason }],
    usage,
  };
}

/**
 * One `chat.completion.chunk` as an SSE event. With `include_usage`, every chunk carries
 * `usage: null` and a last chunk with no choices carries the totals, as OpenAI does.
 */
export function chunkEvent(meta: CompletionMeta, delta: object | null, finishReason: FinishReason | null, includeUsage: boolean, usage?: Usage): string {
  const chunk: Record<string, unknown> = {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    system_fingerprint: 'fake-upstream',
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  if (includeUsage) chunk.usage = usage ?? null;
  return sseEvent(JSON.stringify(chunk));
}

export function sseEvent(data: string): string {
  return `data: ${data}\n\n`;
}

export const SSE_DONE = sseEvent('[DONE]');

/** An OpenAI-shaped error body. */
export function errorBody(message: string, type: string, code: string | null): object {
  return { error: { message, type, param: null, code } };
}

/**
 * Legacy log probabilities of the first `tokens` tokens: each sampled with log probability
 * -0.25 (i + 1), its `alternatives` alternatives after it; `text_offset` from the prompt's end,
 * as OpenAI counts it.
 */
export function textLogprobs(tokens: number, alternatives: number, promptLength: number, from = 0): object {
  const indexes = Array.from({ length: tokens - from }, (_, i) => from + i);
  const logprob = (i: number) => -0.25 * (i + 1);
  const offsets = indexes.map((i) => promptLength + completionText(i).length);
  return {
    tokens: indexes.map(tokenText),
    token_logprobs: indexes.map(logprob),
    top_logprobs: indexes.map((i) =>
      Object.fromEntries(
        [[tokenText(i), logprob(i)], ...Array.from({ length: alternatives }, (_, k) => [` alt${k}`, logprob(i) - 1 - k])].slice(0, alternatives),
      ),
    ),
    text_offset: offsets,
  };
}

/** A `text_completion` object (a legacy completions answer, not streamed). */
export function textCompletionBody(meta: CompletionMeta, tokens: number, finishReason: FinishReason, usage: Usage, logprobs: object | null): object {
  return {
    id: meta.id,
    object: 'text_completion',
    created: meta.created,
    model: meta.model,
    system_fingerprint: 'fake-upstream',
    choices: [{ text: completionText(tokens), index: 0, logprobs, finish_reason: finishReason }],
    usage,
  };
}

/** One streamed `text_completion` chunk as an SSE event (`choices: []` with the usage, when given). */
export function textChunkEvent(
  meta: CompletionMeta,
  text: string | null,
  finishReason: FinishReason | null,
  includeUsage: boolean,
  logprobs: object | null = null,
  usage?: Usage,
): string {
  const chunk: Record<string, unknown> = {
    id: meta.id,
    object: 'text_completion',
    created: meta.created,
    model: meta.model,
    system_fingerprint: 'fake-upstream',
    choices: text === null ? [] : [{ text, index: 0, logprobs, finish_reason: finishReason }],
  };
  if (includeUsage) chunk.usage = usage ?? null;
  return sseEvent(JSON.stringify(chunk));
}
