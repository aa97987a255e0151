import { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { sendError } from './send-error';

/**
 * While the gateway shuts down, requests still arriving on open keep-alive connections are
 * answered 503 in the one error shape (request id, `retry-after`) and the connection is closed,
 * so the client retries on another replica. Fastify's own `return503OnClosing` answer has
 * neither.
 */
export function refuseWhileClosing(fastify: FastifyInstance, logger: Logger): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    sendError(logger, request, reply, new DomainError(ErrorCode.ServiceUnavailable, 'This gateway is shutting down. Retry the request.'));
  });
}
