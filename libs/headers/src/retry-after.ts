import { HEADER } from './header-keys';

/** What a 429 or 503 says when nothing more precise is known. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * `retry-after` (whole seconds, at least 1: what every HTTP client understands) and
 * `retry-after-ms` (the precise wait, at least 1 ms: the OpenAI SDKs read it first).
 */
export function retryAfterHeaders(waitMs: number): Record<string, string> {
  const ms = Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs)) : DEFAULT_RETRY_AFTER_SECONDS * 1000;
  return { [HEADER.retryAfter]: String(Math.max(1, Math.ceil(ms / 1000))), [HEADER.retryAfterMs]: String(ms) };
}
