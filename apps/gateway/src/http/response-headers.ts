import { FastifyInstance } from 'fastify';
import { everyResponseHeaders, HEADER, inboundCorrelation } from '@svc/headers';
import { Logger } from '@svc/logging';
import { GatewayConfig } from '../config';

/**
 * The headers on every response (request id as `CF-RAY` and `x-request-id`, `x-svc-version`,
 * `x-svc-timestamp` when SVC_TIMESTAMP_HEADER is on), set before anything else runs so errors and
 * streams carry them too; `x-svc-host-name` (SVC_HOST_NAME) on error answers; and one log line per
 * request at info (ids, route, status and time only, with the caller's own `x-request-id` or
 * `traceparent` trace id when valid); no hook at all at warn and above.
 */
export function registerResponseHeaders(fastify: FastifyInstance, logger: Logger, config: Pick<GatewayConfig, 'SVC_TIMESTAMP_HEADER' | 'SVC_HOST_NAME'>): void {
  const timestamp = config.SVC_TIMESTAMP_HEADER;
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.headers(everyResponseHeaders(request.id));
    if (timestamp) reply.header(HEADER.timestamp, new Date().toISOString());
    done();
  });
  const hostName = config.SVC_HOST_NAME;
  if (hostName !== undefined) {
    fastify.addHook('onSend', (_request, reply, payload, done) => {
      if (reply.statusCode >= 400) reply.header(HEADER.hostName, hostName);
      done(null, payload);
    });
  }
  if (!logger.isLevelEnabled('info')) return;
  fastify.addHook('onResponse', (request, reply, done) => {
    logger.info(
      {
        requestId: request.id,
        ...inboundCorrelation(request.headers),
        method: request.method,
        path: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
    done();
  });
}
