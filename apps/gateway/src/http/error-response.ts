import { HttpException } from '@nestjs/common';
import { DomainError, ErrorCode, HttpErrorBody, OpenAiErrorBody, statusOf } from '@svc/errors';
import { DEFAULT_RETRY_AFTER_SECONDS, retryAfterHeaders } from '@svc/headers';

/**
 * An error answered with an outside protocol's own body and headers instead of the spec's shape:
 * x402's payment-required to a wallet caller (x402/wallet-payment-refusals.ts).
 */
export class ProtocolError extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string>,
  ) {
    super(code, message);
    this.name = 'ProtocolError';
  }
}

export interface ErrorResponse {
  status: number;
  /** The spec's `{error: string, details?}`; OpenAI's `{error: {message, type, param, code}}` for errors with `openai` fields; a ProtocolError's own. */
  body: HttpErrorBody | (OpenAiErrorBody & { details?: undefined }) | Record<string, unknown>;
  /** `retry-after` and `retry-after-ms` on every 429 and 503 (from `retryAfterSeconds`, else 1 s). */
  headers?: Record<string, string>;
  /** Unknown failures are logged with the request id; their message never reaches the client. */
  unexpected?: unknown;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/** The single mapping from anything thrown to the spec's StandardError / DetailedError. */
export function toErrorResponse(err: unknown): ErrorResponse {
  const response = toResponse(err);
  if (response.status !== 429 && response.status !== 503) return response;
  const seconds = err instanceof DomainError ? err.retryAfterSeconds : undefined;
  return { ...response, headers: retryAfterHeaders((seconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000) };
}

function toResponse(err: unknown): ErrorResponse {
  if (err instanceof ProtocolError) return { status: err.status, body: err.body, headers: err.headers };
  if (err instanceof DomainError) return fromDomain(err);
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404) return { status, body: { error: 'Not found: no such route. See /api/v1 endpoints in the API documentation.' } };
    if (status === 405) return { status, body: { error: 'Method not allowed.' } };
    // Nest turns Fastify's body-parser errors into HttpExceptions carrying Fastify's message.
    if (status === 400 && /JSON/.test(err.message)) return fromDomain(new DomainError(ErrorCode.MalformedJson, 'Malformed JSON in request body.'));
    if (status === 415) return fromDomain(unsupportedMediaType());
    return { status, body: { error: status >= 500 ? 'Internal server error' : err.message } };
  }
  const fastify = err as FastifyLikeError;
  switch (fastify?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return fromDomain(new DomainError(ErrorCode.MalformedJson, 'Malformed JSON in request body.'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fromDomain(new DomainError(ErrorCode.PayloadTooLarge, 'Request body is too large.'));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return fromDomain(unsupportedMediaType());
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, body: { error: 'Invalid Content-Length.' } };
    default:
      break;
  }
  if (err instanceof SyntaxError) return fromDomain(new DomainError(ErrorCode.MalformedJson, 'Malformed JSON in request body.'));
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return { status: fastify.statusCode, body: { error: fastify.message ?? 'Bad request.' } };
  }
  return { status: statusOf(ErrorCode.Internal), body: { error: 'Internal server error' }, unexpected: err };
}

const unsupportedMediaType = () =>
  new DomainError(ErrorCode.UnsupportedMediaType, 'Unsupported Content-Type. Send application/json, or multipart/form-data where the endpoint takes a file.');

/** A DomainError's typed signals (libs/errors `ErrorSignals`) are applied here and nowhere else. */
function fromDomain(err: DomainError): ErrorResponse {
  const body: ErrorResponse['body'] = err.openai
    ? { error: { message: err.message, type: err.openai.type, param: err.openai.param, code: err.openai.code } }
    : err.details
      ? { error: err.message, details: err.details }
      : { error: err.message };
  return { status: err.status, body };
}
