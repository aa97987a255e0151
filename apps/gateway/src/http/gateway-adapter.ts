import { FastifyAdapter } from '@nestjs/platform-fastify';
import { FastifyReply } from 'fastify';

/**
 * Nest's Fastify adapter, except that a reply a route already took over (`reply.hijack()`: the
 * SSE and audio stream relays, which write the raw response themselves) is left alone. Nest
 * answers every route's return value, and Fastify meets a send on a hijacked reply by building
 * an FST_ERR_REP_ALREADY_SENT error (a stack trace) for a warning nobody reads: once per streamed
 * request, for nothing.
 */
export class GatewayFastifyAdapter extends FastifyAdapter {
  override reply(response: FastifyReply, body: unknown, statusCode?: number): FastifyReply {
    // A Fastify reply's `sent` is true once hijacked or ended; a raw ServerResponse has none.
    if ((response as { sent?: boolean }).sent === true) return response;
    return super.reply(response, body, statusCode);
  }
}
