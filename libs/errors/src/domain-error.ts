import { ErrorCode } from './error-code';
import { ErrorDetails, IssueLike, detailsFromIssues, summarizeIssues } from './error-details';
import { statusOf } from './status';

/** What crosses NATS when a handler fails, and what the gateway turns into an HTTP body. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return statusOf(this.code);
  }

  toPayload(): ErrorPayload {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }

  static fromPayload(payload: ErrorPayload): DomainError {
    return new DomainError(payload.code, payload.message, payload.details);
  }

  static validation(issues: ReadonlyArray<IssueLike>): DomainError {
    return new DomainError(ErrorCode.Validation, summarizeIssues(issues), detailsFromIssues(issues));
  }
}

export function isErrorPayload(value: unknown): value is ErrorPayload {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === 'string' && typeof v.message === 'string' && Object.values(ErrorCode).includes(v.code as ErrorCode);
}
