import { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from '@svc/logging';
import { toErrorResponse } from './error-response';
import { errorStyleOf } from './error-style';

export function sendError(logger: Logger, request: FastifyRequest, reply: FastifyReply, err: unknown): void {
  const { status, body, headers, unexpected } = toErrorResponse(err, errorStyleOf(request));
  if (unexpected !== undefined) {
    logger.error(
      {
        requestId: request.id,
        err: unexpected instanceof Error ? { name: unexpected.name, message: unexpected.message, stack: unexpected.stack } : String(unexpected),
      },
      'unhandled error',
    );
  }
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  if (headers) void reply.headers(headers);
  void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
}
