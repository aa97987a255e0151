import { DomainError } from '@svc/errors';

/** The DomainError `fn` throws; fails the test when it returns or throws anything else. */
export function domainErrorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
}
