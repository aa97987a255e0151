import { DomainError, ErrorCode } from '@svc/errors';

/** Why a payment was refused: machine-readable, in `details._errors` of the 400/409 (the message says it for people). */
export type X402Refusal =
  | 'invalid_payload'
  | 'unsupported_version'
  | 'unsupported_scheme'
  | 'unknown_network'
  | 'wrong_asset'
  | 'wrong_pay_to'
  | 'amount_mismatch'
  | 'amount_too_small'
  | 'amount_too_large'
  | 'not_yet_valid'
  | 'expired'
  | 'validity_too_long'
  | 'invalid_signature'
  | 'facilitator_refused';

export function refused(reason: X402Refusal, message: string): DomainError {
  return new DomainError(ErrorCode.Validation, message, { _errors: [reason] });
}

/** The nonce was used by a credited payment, or another request is settling it right now. */
export function replayed(inProgress: boolean): DomainError {
  return inProgress
    ? new DomainError(ErrorCode.Conflict, 'This payment is being settled by another request; retry in a few seconds.', { _errors: ['payment_in_progress'] })
    : new DomainError(ErrorCode.Conflict, 'This payment was already used (its nonce was credited before).', { _errors: ['nonce_already_used'] });
}

export const notConfigured = (): DomainError =>
  new DomainError(ErrorCode.ServiceUnavailable, 'x402 top-ups are not available: this server has no x402 facilitator configured (X402_FACILITATOR_URL).');
