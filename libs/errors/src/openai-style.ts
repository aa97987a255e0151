import type { DomainError } from './domain-error';
import { ErrorCode } from './error-code';
import { firstInvalidField } from './error-details';
import { OpenAiErrorBody } from './openai-error';
import { OpenAiErrorFields } from './openai-error-fields';

/**
 * How the gateway writes error bodies (ERROR_STYLE): the spec's StandardError / DetailedError,
 * or OpenAI's `{error: {message, type, param, code}}` for every error, for code written against
 * OpenAI that branches on `err.code` (docs/errors.md).
 */
export const ERROR_STYLES = ['standard', 'openai'] as const;
export type ErrorStyle = (typeof ERROR_STYLES)[number];

/**
 * OpenAI's `type` and `code` for each ErrorCode. OpenAI's own code where it has one for the same
 * failure (`invalid_api_key`, `model_not_found`, `insufficient_quota`, `rate_limit_exceeded`);
 * otherwise ours in snake case. A Record: a new ErrorCode does not compile until it is here.
 */
export const OPENAI_ERRORS: Record<ErrorCode, Pick<OpenAiErrorFields, 'type' | 'code'>> = {
  [ErrorCode.Validation]: { type: 'invalid_request_error', code: 'invalid_value' },
  [ErrorCode.MalformedJson]: { type: 'invalid_request_error', code: 'invalid_json' },
  [ErrorCode.Unauthorized]: { type: 'authentication_error', code: 'invalid_api_key' },
  [ErrorCode.AdminRequired]: { type: 'permission_error', code: 'insufficient_permissions' },
  [ErrorCode.InsufficientCredits]: { type: 'insufficient_quota', code: 'insufficient_quota' },
  [ErrorCode.Forbidden]: { type: 'permission_error', code: 'permission_denied' },
  [ErrorCode.NotFound]: { type: 'invalid_request_error', code: 'not_found' },
  [ErrorCode.ModelNotFound]: { type: 'invalid_request_error', code: 'model_not_found' },
  [ErrorCode.PayloadTooLarge]: { type: 'invalid_request_error', code: 'payload_too_large' },
  [ErrorCode.RequestTimeout]: { type: 'invalid_request_error', code: 'request_timeout' },
  [ErrorCode.HeadersTooLarge]: { type: 'invalid_request_error', code: 'headers_too_large' },
  [ErrorCode.UriTooLong]: { type: 'invalid_request_error', code: 'uri_too_long' },
  [ErrorCode.UnsupportedMediaType]: { type: 'invalid_request_error', code: 'unsupported_media_type' },
  [ErrorCode.Conflict]: { type: 'invalid_request_error', code: 'conflict' },
  [ErrorCode.Gone]: { type: 'invalid_request_error', code: 'gone' },
  // OpenAI's type says which limit: `tokens` when the error's `limitedOn` says so.
  [ErrorCode.RateLimited]: { type: 'requests', code: 'rate_limit_exceeded' },
  [ErrorCode.Upstream]: { type: 'server_error', code: 'upstream_error' },
  [ErrorCode.ServiceUnavailable]: { type: 'server_error', code: 'service_unavailable' },
  [ErrorCode.Timeout]: { type: 'server_error', code: 'timeout' },
  [ErrorCode.Internal]: { type: 'server_error', code: 'server_error' },
};

/** A DomainError's OpenAI fields: its own (`context_length_exceeded`), else from OPENAI_ERRORS. */
export function openAiFieldsOf(err: DomainError): OpenAiErrorFields {
  if (err.openai) return err.openai;
  const { type, code } = OPENAI_ERRORS[err.code];
  if (err.code === ErrorCode.RateLimited) return { type: err.limitedOn ?? type, code, param: null };
  return { type, code, param: err.code === ErrorCode.Validation ? firstInvalidField(err.details) : null };
}

/** `{error: {message, type, param, code}}`, in that order. */
export function openAiErrorBodyOf(err: DomainError): OpenAiErrorBody {
  const { type, param, code } = openAiFieldsOf(err);
  return { error: { message: err.message, type, param, code } };
}
