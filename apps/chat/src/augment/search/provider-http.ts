import { request } from 'undici';
import { DomainError, ErrorCode } from '@svc/errors';

/**
 * GET JSON from an operator-configured search API. Not through @svc/outbound: the operator chose
 * this URL (a self-hosted SearXNG usually lives on a private network). Failures are the
 * provider's, never the caller's: 502, or 504 on timeout. Queries are not logged.
 */
export async function getJson(provider: string, url: URL, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    if (res.statusCode >= 400) {
      await res.body.dump();
      if (res.statusCode === 429) throw new DomainError(ErrorCode.ServiceUnavailable, `The search provider (${provider}) is rate limiting; retry later.`);
      throw new DomainError(ErrorCode.Upstream, `The search provider (${provider}) failed (HTTP ${res.statusCode}).`);
    }
    return await res.body.json();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (timeout.aborted) throw new DomainError(ErrorCode.Timeout, `The search provider (${provider}) did not answer within ${timeoutMs} ms.`);
    throw new DomainError(ErrorCode.Upstream, `The search provider (${provider}) is unreachable or answered malformed JSON.`);
  }
}

export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
