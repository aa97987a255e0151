import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ErrorCode, ErrorStyle } from '@svc/errors';
import { everyResponseHeaders, HEADER, newRequestId } from '@svc/headers';
import { Logger } from '@svc/logging';
import { toErrorResponse } from './error-response';
import { sendError } from './send-error';

/** What Node's HTTP parser says about a request it could not read, in the client's terms. */
const PARSER_REASONS: Record<string, string> = {
  HPE_INVALID_CONTENT_LENGTH: 'invalid Content-Length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'both Content-Length and Transfer-Encoding',
  HPE_INVALID_TRANSFER_ENCODING: 'invalid Transfer-Encoding',
  HPE_INVALID_CHUNK_SIZE: 'invalid chunk size',
  HPE_INVALID_HEADER_TOKEN: 'invalid character in a header',
  HPE_INVALID_METHOD: 'invalid method',
  HPE_INVALID_URL: 'invalid URL',
  HPE_INVALID_VERSION: 'invalid HTTP version',
  HPE_LF_EXPECTED: 'bad line ending',
  HPE_CR_EXPECTED: 'bad line ending',
};

/** The error Node reports for a request it could not read or that did not arrive in time, as a DomainError. */
export function clientErrorOf(err: { code?: string }): DomainError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError(ErrorCode.RequestTimeout, 'The request was not received in time (REQUEST_HEADERS_TIMEOUT_MS / REQUEST_RECEIVE_TIMEOUT_MS).');
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError(ErrorCode.HeadersTooLarge, 'The request headers are too large.');
    default: {
      const reason = err.code ? PARSER_REASONS[err.code] : undefined;
      return new DomainError(ErrorCode.Validation, reason ? `Malformed HTTP request: ${reason}.` : 'Malformed HTTP request.');
    }
  }
}

/**
 * Fastify's `clientErrorHandler`: answers in the one error shape (ERROR_STYLE's), with a request
 * id, where Fastify's default would write `{error, message, statusCode}`. Then closes the connection.
 */
export function clientErrorHandler(style: ErrorStyle) {
  return (err: Error & { code?: string }, socket: Socket): void => handleClientError(err, socket, style);
}

function handleClientError(err: Error & { code?: string }, socket: Socket, style: ErrorStyle): void {
  // A reset connection has nobody to answer; a response already under way cannot get a second head.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || socket.destroyed || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  if (socket.writable) {
    const { status, body } = toErrorResponse(clientErrorOf(err), style);
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `${HEADER.contentType}: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(json)}\r\n` +
        Object.entries(everyResponseHeaders(newRequestId()))
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('') +
        `connection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy();
}

/**
 * Node answers an `Expect` other than 100-continue with a bare 417 (no request id, no error
 * body). The RFC lets a server ignore an expectation it does not know: the request is served.
 */
export function ignoreUnknownExpectations(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response));
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode, or a path parameter past its
 * length limit, found before any hook runs. Answered like every other error (request id
 * included), where Fastify's default would write `{error, code, message, statusCode}`.
 */
export function frameworkErrorHandler(logger: Logger) {
  return (err: { code?: string }, request: FastifyRequest, reply: FastifyReply): void => {
    void reply.headers(everyResponseHeaders(request.id));
    const refused =
      err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new DomainError(ErrorCode.UriTooLong, 'A path parameter is too long (at most 100 characters).')
        : err.code === 'FST_ERR_BAD_URL'
          ? new DomainError(ErrorCode.Validation, 'Malformed URL: a path segment is not valid percent-encoded UTF-8.')
          : err;
    sendError(logger, request, reply, refused);
  };
}
