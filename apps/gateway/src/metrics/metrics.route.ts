import { FastifyInstance } from 'fastify';
import { ClusterScrape } from '../cluster/cluster-metrics';
import { GatewayMetrics } from './gateway-metrics';

declare module 'fastify' {
  interface FastifyRequest {
    /** The catalog model id the request was admitted for ("" when none): a metrics label. */
    metricsModel: string;
  }
}

/** Where Prometheus scrapes the gateway: beside /healthz, outside /api/v1, without a key. */
export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics` (Prometheus text format) and the hook that counts every answered request by
 * route pattern (`routeOptions.url`, never the raw URL: "unmatched" for a 404 of no route),
 * method, model and status, with its time to the response's end.
 */
export function registerMetrics(fastify: FastifyInstance, metrics: GatewayMetrics): void {
  // Declared even with metrics off, so the request objects keep one shape either way.
  fastify.decorateRequest('metricsModel', '');
  if (!metrics.enabled) return;
  metrics.collectDefaults();
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.routeOptions.url ?? 'unmatched', request.method, request.metricsModel, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // With GATEWAY_WORKERS > 1 every worker's series, summed by the primary.
  const scrape = new ClusterScrape(metrics.registry);
  fastify.get(METRICS_PATH, async (_request, reply) => {
    const { text, contentType } = await scrape.scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(text);
  });
}
