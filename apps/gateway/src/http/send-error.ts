import { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response';

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): void {
  const { status, body, unexpected } = toErrorResponse(err);
  if (unexpected !== undefined) {
    request.log.error({ requestId: request.id, err: unexpected instanceof Error ? { name: unexpected.name, message: unexpected.message, stack: unexpected.stack } : String(unexpected) }, 'unhandled error');
  }
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
}
