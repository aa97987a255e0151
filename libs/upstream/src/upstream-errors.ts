import { contextLengthExceeded, DomainError, ErrorCode } from '@svc/errors';
import { retryAfterSeconds } from './retry-after';
import { KnownSecrets, scrubUpstreamMessage } from './scrub';
import { readUpstreamErrorBody } from './upstream-body';
import { CONTEXT_PARAM, SERVER_LABEL, UpstreamKind } from './upstream-kind';
import { isUpstreamTimeout } from './transport';

/** `retry-after` as undici (`string | string[]`) or fetch (`string | null`) hands it over. */
export type RetryAfterHeader = string | ReadonlyArray<string> | null | undefined;

/**
 * The one mapping from an upstream server's failure to what the caller sees, for every engine
 * kind (libs/upstream/README.md has the table):
 *
 * - 400, 422 → 400 with the server's message, scrubbed; `context_length_exceeded` (chat,
 *   embeddings) → 400 in OpenAI's shape
 * - 429 → 429 with `retryAfterSeconds` (the server's `retry-after`, 1 when it gives none)
 * - 401, 403 → 502: the operator's credentials are not the caller's fault
 * - 408, 504, timeouts → 504
 * - 503 → 503; other 5xx, other 4xx, unreachable, a dropped connection → 502
 *
 * Only 400/422 messages are passed on, scrubbed of URLs, addresses, host names and keys; every
 * other message is ours.
 */
export class UpstreamErrors {
  private readonly server: string;

  constructor(
    readonly kind: UpstreamKind,
    private readonly known: KnownSecrets = {},
  ) {
    this.server = SERVER_LABEL[kind];
  }

  /** An HTTP answer with status >= 400. */
  http(status: number, body: string, retryAfter?: RetryAfterHeader): DomainError {
    const server = this.server;
    if (status === 400 || status === 422) {
      const said = readUpstreamErrorBody(body);
      const param = CONTEXT_PARAM[this.kind];
      if (param && said.code === 'context_length_exceeded') return contextLengthExceeded(undefined, undefined, param);
      const message = said.message ? this.scrub(said.message) : '';
      return new DomainError(ErrorCode.Validation, `The ${server} rejected the request: ${message || 'no details'}`);
    }
    if (status === 429) {
      const seconds = retryAfterSeconds(retryAfter);
      return new DomainError(ErrorCode.RateLimited, `The ${server} is rate limiting requests. Retry after ${seconds} seconds.`, undefined, {
        retryAfterSeconds: seconds,
      });
    }
    if (status === 408 || status === 504) return new DomainError(ErrorCode.Timeout, `The ${server} timed out.`);
    if (status === 503) return new DomainError(ErrorCode.ServiceUnavailable, `The ${server} is unavailable (HTTP 503). Retry later.`);
    if (status === 401 || status === 403) return new DomainError(ErrorCode.Upstream, `The ${server} refused this platform's credentials (HTTP ${status}).`);
    if (status >= 500) return new DomainError(ErrorCode.Upstream, `The ${server} failed (HTTP ${status}).`);
    return new DomainError(ErrorCode.Upstream, `The ${server} answered HTTP ${status}.`);
  }

  /**
   * A request that got no answer (`'request'`) or whose answer broke off or could not be read
   * (`'response'`): 504 for timeouts, otherwise 502. Errors that are already DomainErrors pass.
   */
  transport(err: unknown, phase: 'request' | 'response' = 'request'): DomainError {
    if (err instanceof DomainError) return err;
    if (isUpstreamTimeout(err)) return new DomainError(ErrorCode.Timeout, `The ${this.server} timed out.`);
    if (phase === 'request') return new DomainError(ErrorCode.Upstream, `The ${this.server} is unreachable.`);
    if (err instanceof SyntaxError) return new DomainError(ErrorCode.Upstream, `The ${this.server} answered malformed JSON.`);
    return new DomainError(ErrorCode.Upstream, `The ${this.server} closed the connection.`);
  }

  /** A message from this kind's servers, scrubbed with what is known about them. */
  scrub(message: string): string {
    return scrubUpstreamMessage(message, this.known);
  }
}
