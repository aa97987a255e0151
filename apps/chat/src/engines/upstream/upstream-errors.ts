import { DomainError, ErrorCode } from '@svc/errors';
import { contextLengthExceeded } from '../context-length';

/**
 * Maps an upstream server's HTTP failure to what our caller sees (docs/chat.md, "Upstream
 * routing"): 429 stays 429 with the upstream's retry-after, 503 is 503, other 5xx are 502,
 * timeouts 504. Upstream bodies are not echoed, except the message of a 400 with URLs removed;
 * hostnames and keys never appear.
 */
export function upstreamHttpError(status: number, body: string, retryAfter?: string | string[]): DomainError {
  if (status === 400 || status === 422) {
    const parsed = parseError(body);
    if (parsed.code === 'context_length_exceeded') return contextLengthExceeded(undefined, undefined);
    return new DomainError(ErrorCode.Validation, `The model server rejected the request: ${scrub(parsed.message ?? body.slice(0, 200)) || 'no details'}`);
  }
  if (status === 429) {
    const seconds = retryAfterSeconds(retryAfter);
    const message = `The model server is rate limiting requests. Retry after ${seconds} seconds.`;
    return new DomainError(ErrorCode.RateLimited, message, { _errors: [message], retry_after_seconds: [String(seconds)] });
  }
  if (status === 408 || status === 504) return new DomainError(ErrorCode.Timeout, 'The model server timed out.');
  if (status === 503) return new DomainError(ErrorCode.ServiceUnavailable, 'The model server is unavailable (HTTP 503). Retry later.');
  if (status >= 500) return new DomainError(ErrorCode.Upstream, `The model server failed (HTTP ${status}).`);
  return new DomainError(ErrorCode.Upstream, `The model server answered HTTP ${status}.`);
}

export function upstreamTransportError(err: unknown): DomainError {
  const code = (err as { code?: string } | undefined)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new DomainError(ErrorCode.Timeout, 'The model server timed out.');
  }
  return new DomainError(ErrorCode.Upstream, 'The model server is unreachable.');
}

/** No answer can have started: safe to send the request again (to another endpoint). */
export function isRetryableTransportError(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH';
}

function retryAfterSeconds(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = value ? Date.parse(value) : NaN;
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - Date.now()) / 1000)) : 1;
}

function parseError(body: string): { message?: string; code?: string } {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string; code?: string } | string; message?: string; code?: string };
    if (typeof parsed.error === 'string') return { message: parsed.error };
    return { message: (parsed.error?.message ?? parsed.message)?.slice(0, 500), code: parsed.error?.code ?? parsed.code };
  } catch {
    return {};
  }
}

/** Removes URLs and host:port pairs, so an upstream message cannot reveal where the upstream is. */
function scrub(message: string): string {
  return message.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[url]').replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, '[host]').replace(/\blocalhost(?::\d+)?\b/gi, '[host]');
}
