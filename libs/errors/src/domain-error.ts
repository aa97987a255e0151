import { ErrorCode } from './error-code';
import { ErrorDetails, IssueLike, detailsFromIssues, summarizeIssues } from './error-details';
import type { OpenAiErrorFields } from './openai-error-fields';
import { statusOf } from './status';

/**
 * Signals a client acts on, typed (not strings in `details`): the gateway's error filter turns
 * `retryAfterSeconds` into a `retry-after` header and `openai` into OpenAI's error body.
 */
export interface ErrorSignals {
  /** Seconds a client should wait before trying again (429, 503); fractions carry ms precision (`retry-after-ms`). */
  retryAfterSeconds?: number;
  openai?: OpenAiErrorFields;
  /** Which kind of limit refused a 429: OpenAI's error `type` (`requests` or `tokens`) when ERROR_STYLE=openai. */
  limitedOn?: LimitedOn;
}

export type LimitedOn = 'requests' | 'tokens';

/** What crosses NATS when a handler fails, and what the gateway turns into an HTTP body. */
export interface ErrorPayload extends ErrorSignals {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

export class DomainError extends Error {
  readonly retryAfterSeconds?: number;
  readonly openai?: OpenAiErrorFields;
  readonly limitedOn?: LimitedOn;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    signals?: ErrorSignals,
  ) {
    super(message);
    this.name = 'DomainError';
    if (signals?.retryAfterSeconds !== undefined) this.retryAfterSeconds = signals.retryAfterSeconds;
    if (signals?.openai) this.openai = signals.openai;
    if (signals?.limitedOn) this.limitedOn = signals.limitedOn;
  }

  get status(): number {
    return statusOf(this.code);
  }

  toPayload(): ErrorPayload {
    const payload: ErrorPayload = { code: this.code, message: this.message };
    if (this.details) payload.details = this.details;
    if (this.retryAfterSeconds !== undefined) payload.retryAfterSeconds = this.retryAfterSeconds;
    if (this.openai) payload.openai = this.openai;
    if (this.limitedOn) payload.limitedOn = this.limitedOn;
    return payload;
  }

  /** Signals that arrive malformed are dropped: a payload is only as trusted as its sender. */
  static fromPayload(payload: ErrorPayload): DomainError {
    const retryAfterSeconds = validRetryAfter(payload.retryAfterSeconds) ? payload.retryAfterSeconds : undefined;
    const openai = validOpenAi(payload.openai) ? payload.openai : undefined;
    const limitedOn = payload.limitedOn === 'requests' || payload.limitedOn === 'tokens' ? payload.limitedOn : undefined;
    return new DomainError(
      payload.code,
      payload.message,
      payload.details,
      retryAfterSeconds !== undefined || openai || limitedOn ? { retryAfterSeconds, openai, limitedOn } : undefined,
    );
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

function validRetryAfter(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function validOpenAi(value: unknown): value is OpenAiErrorFields {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === 'string' && typeof v.code === 'string' && (v.param === null || typeof v.param === 'string');
}
