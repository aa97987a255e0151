import { DomainError, ErrorCode } from '@svc/errors';

/** What generate() rejects with when the caller's signal aborts (same name as DOM's AbortError). */
export class EngineAbortError extends Error {
  override readonly name = 'AbortError';
  readonly code = 'ABORT_ERR';
}

export function abortError(signal?: AbortSignal): EngineAbortError {
  return new EngineAbortError('The generation was aborted', { cause: signal?.reason });
}

export function engineCrashedError(detail: string): DomainError {
  return new DomainError(
    ErrorCode.ServiceUnavailable,
    `The embedded model process stopped during generation (${detail}). It is being restarted; retry the request.`,
  );
}

export function engineUnavailableError(reason: string): DomainError {
  return new DomainError(ErrorCode.ServiceUnavailable, `The embedded model is unavailable: ${reason}`);
}

export function engineClosedError(): DomainError {
  return new DomainError(ErrorCode.ServiceUnavailable, 'The embedded model engine has been closed.');
}
