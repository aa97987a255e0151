import { UnrecoverableError } from 'bullmq';
import { DomainError, statusOf } from '@svc/errors';

/** How a refused job's failure reason starts, so retrieval can tell a refusal from a crash. */
const REFUSED = 'refused: ';

/**
 * A job whose engine refused the request (a 4xx DomainError: bad input, a content policy, an
 * upstream's own 400) fails at once instead of being retried: another attempt would be refused
 * again (and, upstream, paid for again). Anything else (a crash, a timeout, a 5xx) is retried.
 */
export function finalIfRefused(err: unknown): unknown {
  if (err instanceof DomainError && statusOf(err.code) < 500) return new UnrecoverableError(`${REFUSED}${err.message}`);
  return err;
}

/** The reason to show the client for a failed job: the refusal's own message, else `fallback` (never internals). */
export function failedJobMessage(failedReason: string | undefined, fallback: string): string {
  return failedReason?.startsWith(REFUSED) ? failedReason.slice(REFUSED.length) : fallback;
}

/**
 * Whether a failure ended the job's attempts early (see finalIfRefused). By name, as BullMQ itself
 * checks it: an error that crossed a process or module boundary is no longer an instance.
 */
export const isRefusal = (err: Error): boolean => err.name === 'UnrecoverableError';
