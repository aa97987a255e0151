import { DomainError, ErrorCode } from '@svc/errors';

/**
 * For short calls (auth, billing): the longest wait without an answer or a heartbeat
 * (`idleTimeoutMs`), so a replica that died holding the call is noticed in this time, not at the
 * call's whole timeout.
 */
export const QUICK_CALL_IDLE_MS = 1_500;

/**
 * Runs an idempotent call (a read, or a write whose id the caller chose: a lease or reservation
 * id) once more if the first attempt got no answer because the replica or the bus went away
 * (503): another replica, or the restarted one, takes it, and a first attempt that did commit is
 * replayed, not doubled.
 */
export async function retryIfUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof DomainError && err.code === ErrorCode.ServiceUnavailable) return call();
    throw err;
  }
}
