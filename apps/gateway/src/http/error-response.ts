import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { DomainError, ErrorCode, ErrorStyle, HttpErrorBody, OpenAiErrorBody, openAiErrorBodyOf } from '@svc/errors';
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
  /** The spec's `{error: string, details?}`; OpenAI's `{error: {message, type, param, code}}` with ERROR_STYLE=openai or for errors with `openai` fields; a ProtocolError's own. */
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

/**
 * The single mapping from anything thrown to the spec's StandardError / DetailedError, or with
 * ERROR_STYLE=openai to OpenAI's `{error: {message, type, param, code}}` (docs/errors.md).
 */
export function toErrorResponse(err: unknown, style: ErrorStyle = 'standard'): ErrorResponse {
  const response = toResponse(err, style);
  if (response.status !== 429 && response.status !== 503) return response;
  const seconds = err instanceof DomainError ? err.retryAfterSeconds : undefined;
  return { ...response, headers: retryAfterHeaders((seconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000) };
}

function toResponse(err: unknown, style: ErrorStyle): ErrorResponse {
  if (err instanceof ProtocolError) return { status: err.status, body: err.body, headers: err.headers };
  if (err instanceof DomainError) return fromDomain(err, style);
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404) return fromDomain(noSuchRoute(), style);
    if (status === 405) return fromStatus(status, 'Method not allowed.', style);
    // Nest turns Fastify's body-parser errors into HttpExceptions carrying Fastify's message.
    if (status === 400 && /JSON/.test(err.message)) return fromDomain(malformedJson(), style);
    if (status === 415) return fromDomain(unsupportedMediaType(), style);
    return fromStatus(status, status >= 500 ? 'Internal server error' : err.message, style);
  }
  const fastify = err as FastifyLikeError;
  switch (fastify?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return fromDomain(malformedJson(), style);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fromDomain(new DomainError(ErrorCode.PayloadTooLarge, 'Request body is too large.'), style);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return fromDomain(unsupportedMediaType(), style);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return fromDomain(new DomainError(ErrorCode.Validation, 'Invalid Content-Length.'), style);
    default:
      break;
  }
  if (err instanceof SyntaxError) return fromDomain(malformedJson(), style);
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return fromStatus(fastify.statusCode, fastify.message ?? 'Bad request.', style);
  }
  return { ...fromDomain(new DomainError(ErrorCode.Internal, 'Internal server error'), style), unexpected: err };
}

const noSuchRoute = () => new DomainError(ErrorCode.NotFound, 'Not found: no such route. See /api/v1 endpoints in the API documentation.');

const malformedJson = () => new DomainError(ErrorCode.MalformedJson, 'Malformed JSON in request body.');

const unsupportedMediaType = () =>
  new DomainError(ErrorCode.UnsupportedMediaType, 'Unsupported Content-Type. Send application/json, or multipart/form-data where the endpoint takes a file.');

/** A DomainError's typed signals (libs/errors `ErrorSignals`) are applied here and nowhere else. */
function fromDomain(err: DomainError, style: ErrorStyle): ErrorResponse {
  const body: ErrorResponse['body'] =
    err.openai || style === 'openai' ? openAiErrorBodyOf(err) : err.details ? { error: err.message, details: err.details } : { error: err.message };
  return { status: err.status, body };
}

/**
 * A failure known only by its status (Nest's or Fastify's own), with no ErrorCode: in OpenAI's
 * style a client error is an `invalid_request_error` named after its status (`method_not_allowed`).
 */
function fromStatus(status: number, message: string, style: ErrorStyle): ErrorResponse {
  if (style === 'standard') return { status, body: { error: message } };
  const server = status >= 500;
  const code = server ? 'server_error' : (STATUS_CODES[status] ?? 'invalid_request').toLowerCase().replace(/[^a-z0-9]+/g, '_');
  return { status, body: { error: { message, type: server ? 'server_error' : 'invalid_request_error', param: null, code } } };
}
