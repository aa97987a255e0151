const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/** Failures where no request reached the server: safe to send it again, to another endpoint. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

interface ErrorLike {
  name?: string;
  code?: string;
  cause?: unknown;
}

/** undici's timeouts, `AbortSignal.timeout()` (`TimeoutError`), and either wrapped by fetch (`cause`). */
export function isUpstreamTimeout(err: unknown): boolean {
  return someInChain(err, (e) => e.name === 'TimeoutError' || (e.code !== undefined && TIMEOUT_CODES.has(e.code)));
}

/** No answer can have started: safe to send the request again (to another endpoint). */
export function isRetryableTransportError(err: unknown): boolean {
  return someInChain(err, (e) => e.code !== undefined && NOT_SENT_CODES.has(e.code));
}

function someInChain(err: unknown, test: (e: ErrorLike) => boolean): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    if (test(current as ErrorLike)) return true;
    current = (current as ErrorLike).cause;
  }
  return false;
}
