import { DomainError, ErrorCode } from '@svc/errors';

/** Maps an upstream server's HTTP failure to what our caller sees; upstream bodies are not echoed except 400 messages. */
export function upstreamHttpError(status: number, body: string): DomainError {
  if (status === 400 || status === 422) return new DomainError(ErrorCode.Validation, `The model server rejected the request: ${extractMessage(body)}`);
  if (status === 429) return new DomainError(ErrorCode.ServiceUnavailable, 'The model server is at capacity. Retry with backoff.');
  if (status === 408 || status === 504) return new DomainError(ErrorCode.Timeout, 'The model server timed out.');
  return new DomainError(ErrorCode.Upstream, `The model server failed (HTTP ${status}).`);
}

export function upstreamTransportError(err: unknown): DomainError {
  const code = (err as { code?: string } | undefined)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return new DomainError(ErrorCode.Timeout, 'The model server timed out.');
  return new DomainError(ErrorCode.Upstream, 'The model server is unreachable.');
}

function extractMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    const msg = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (msg) return msg.slice(0, 500);
  } catch {
    /* not JSON */
  }
  return body.slice(0, 200) || 'no details';
}
