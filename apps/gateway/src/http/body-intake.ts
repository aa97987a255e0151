import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Logger } from '@svc/logging';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { BodyBudget, BodyHold } from './body-budget';
import { sendError } from './send-error';

/** What a client refused for the budget is told to wait: a large upload is seconds of work for whoever holds it. */
export const BODY_BUDGET_RETRY_AFTER_SECONDS = 2;
/** How long a connection answered before its body ended may go on discarding it before it is closed. */
export const LINGER_MS = 10_000;

const holds = new WeakMap<IncomingMessage, BodyHold>();
/** Requests refused while their body was still arriving: answered on a connection kept open while the rest is discarded. */
const refusedMidBody = new WeakSet<IncomingMessage>();

export const bodyTooLarge = (limit: number) => new DomainError(ErrorCode.PayloadTooLarge, `Request body is too large (at most ${limit} bytes).`);

export const bodyBudgetExhausted = () =>
  new DomainError(ErrorCode.ServiceUnavailable, 'The gateway is receiving too many large request bodies at once. Retry the request shortly.', undefined, {
    retryAfterSeconds: BODY_BUDGET_RETRY_AFTER_SECONDS,
  });

/** The request's hold on the body budget (taken in `onRequest`); the readers of JSON and multipart grow it as bytes arrive. */
export function bodyHoldOf(request: FastifyRequest): BodyHold | undefined {
  return holds.get(request.raw);
}

/**
 * Marks a request refused by a body reader before its body ended (413 past the limit, 503 past
 * the budget), so the answer goes out on a connection that discards the rest of the body instead
 * of one closed under the client's feet (Fastify closes after a parser error: a reset, not a 413).
 */
export function refuseMidBody(request: FastifyRequest, err: DomainError): DomainError {
  refusedMidBody.add(request.raw);
  return err;
}

/**
 * Admission of request bodies, before a byte of them is buffered (issue 28): a Content-Length over
 * BODY_LIMIT_BYTES is a 413, one the body budget cannot take a 503 with `retry-after`; a body
 * without one (chunked) is counted by its reader as it arrives (read-body.ts, multipart.ts). The
 * hold is given back when the response ends. Refused bodies are discarded as they arrive (Node's
 * dump; at most REQUEST_RECEIVE_TIMEOUT_MS of them), so the client reads its answer.
 */
export function registerBodyIntake(fastify: FastifyInstance, intake: { budget: BodyBudget; limit: number; metrics: GatewayMetrics }, logger: Logger): void {
  const { budget, limit, metrics } = intake;
  continueOnlyWhenAdmitted(fastify.server);
  fastify.addHook('onRequest', (request, reply, done) => {
    const admit = () => {
      if (request.headers[HEADER.expect]?.toLowerCase() === '100-continue') reply.raw.writeContinue();
      done();
    };
    const declared = request.headers[HEADER.contentLength];
    const length = declared === undefined ? 0 : Number(declared);
    if (length === 0 && request.headers[HEADER.transferEncoding] === undefined) return admit();
    const hold = budget.open();
    holds.set(request.raw, hold);
    reply.raw.once('close', () => hold.release());
    // A malformed Content-Length never gets here: Node's parser refuses it (client-error.ts).
    if (length > limit) return sendError(logger, request, reply, bodyTooLarge(limit));
    if (!hold.grow(length)) {
      metrics.refused('body_budget');
      return sendError(logger, request, reply, bodyBudgetExhausted());
    }
    admit();
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (!raw.complete && !raw.destroyed) {
      if (refusedMidBody.has(raw)) {
        reply.removeHeader(HEADER.connection);
        if (reply.statusCode === 503) metrics.refused('body_budget');
      }
      // A reader that stopped (a refused multipart body) left the stream paused: the client would stall.
      raw.resume();
      lingerBeforeClosing(raw);
    }
    done(null, payload);
  });
}

/**
 * Node answers `Expect: 100-continue` with 100 Continue before any hook runs, so a client that
 * asked first sends a body the gateway then refuses. With a listener, Node leaves it to us: the
 * intake writes 100 Continue once the body is admitted, and a refused client never sends it.
 */
function continueOnlyWhenAdmitted(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response));
}

/**
 * Node closes a connection that ends with this answer (the client sent `Connection: close`, or
 * the gateway did) as soon as the answer is written; with body bytes still unread the kernel then
 * sends a reset, which can reach the client before it has read the answer (an EPIPE or
 * ECONNRESET instead of a 413). Instead: send the answer and FIN, discard the rest of the body,
 * and close once the body has ended or the client closed, or after LINGER_MS (a lingering close).
 */
function lingerBeforeClosing(raw: IncomingMessage): void {
  const socket = raw.socket as Socket | null;
  if (!socket || Object.prototype.hasOwnProperty.call(socket, 'destroySoon')) return;
  const own = socket as unknown as { destroySoon?: () => void };
  // Node's own destroySoon (end, then destroy once written) again for whatever comes next on this connection.
  const closeSoon = () => {
    delete own.destroySoon;
    socket.destroySoon();
  };
  own.destroySoon = () => {
    if (raw.complete) return closeSoon();
    if (socket.writable) socket.end();
    const timer = setTimeout(closeSoon, LINGER_MS);
    timer.unref();
    raw.once('end', closeSoon);
    socket.once('close', () => clearTimeout(timer));
  };
}
