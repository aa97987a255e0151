/**
 * How a chat-completions (or legacy completions) request fails on purpose.
 * - `http-500`, `http-429`: an OpenAI-shaped error body with that status (429 carries `retry-after`).
 * - `hang`: the request is read and never answered (until the client gives up or `close()`).
 * - `malformed-json`: a 200 whose JSON body is cut short; when streaming, one event is not JSON.
 * - `drop-mid-stream`: the connection is destroyed after `dropAfterTokens` tokens (streaming),
 *   or before any response byte (non-streaming).
 */
export const FAILURE_MODES = ['none', 'http-500', 'http-429', 'hang', 'malformed-json', 'drop-mid-stream'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

export interface FakeUpstreamOptions {
  /** Tokens a completion has when `max_tokens` does not cut it shorter. Default 8. */
  completionTokens?: number;
  /**
   * How prompt tokens are counted: `words` (default, exact counts for tests), or `bytes`, the
   * most any byte-level tokenizer can produce: one token per UTF-8 byte of every text part and of
   * the tool definitions (money tests: a hold must cover it).
   */
  promptTokens?: 'words' | 'bytes';
  /** Milliseconds before the first token (streaming: before the first body byte). Default 0. */
  firstTokenDelayMs?: number;
  /** Milliseconds between tokens after the first. Default 0. */
  tokenDelayMs?: number;
  /** Default `none`. Applies to `POST /v1/chat/completions` and `POST /v1/completions` only. */
  failure?: FailureMode;
  /** Fail only the next N chat requests, then answer normally (retry tests). Default: every request. */
  failureTimes?: number;
  /** Tokens sent before `drop-mid-stream` cuts the connection. Default: half the completion. */
  dropAfterTokens?: number;
  /** Seconds in the `retry-after` header of a 429. Default 1. */
  retryAfterSeconds?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get a 401. */
  apiKey?: string;
  /** Ids listed by `GET /v1/models`. Chat requests may name any model; it is echoed back. */
  models?: string[];
  /** Most recent requests kept in `requests`; 0 keeps none (benchmarks). Default 1000. */
  recordLimit?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
}

export type ResolvedFakeUpstreamOptions = Required<Omit<FakeUpstreamOptions, 'failureTimes' | 'dropAfterTokens' | 'apiKey'>> &
  Pick<FakeUpstreamOptions, 'failureTimes' | 'dropAfterTokens' | 'apiKey'>;

export function resolveOptions(options: FakeUpstreamOptions): ResolvedFakeUpstreamOptions {
  return {
    completionTokens: options.completionTokens ?? 8,
    promptTokens: options.promptTokens ?? 'words',
    firstTokenDelayMs: options.firstTokenDelayMs ?? 0,
    tokenDelayMs: options.tokenDelayMs ?? 0,
    failure: options.failure ?? 'none',
    failureTimes: options.failureTimes,
    dropAfterTokens: options.dropAfterTokens,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    apiKey: options.apiKey,
    models: options.models ?? ['fake-model'],
    recordLimit: options.recordLimit ?? 1000,
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
  };
}

/** What happened to a recorded request; updated while it is served. */
export type RequestOutcome = 'pending' | 'completed' | 'client-aborted' | 'dropped' | 'hung';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  receivedAt: number;
  outcome: RequestOutcome;
}
