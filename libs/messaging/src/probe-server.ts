import { createServer, Server, ServerResponse } from 'node:http';
import { NatsConnection } from 'nats';
import { serviceMetricsRegistry } from './service-metrics';

/** What a service's probes read: set by bootstrapService. */
export interface ProbeState {
  /** False until the subscriptions are registered, and again from the first shutdown signal. */
  ready: boolean;
  nc?: NatsConnection;
}

/** NATS answers this process: connected, not reconnecting, closing or draining. */
export function natsConnected(nc: NatsConnection | undefined): boolean {
  if (!nc || nc.isClosed() || nc.isDraining()) return false;
  const protocol = (nc as unknown as { protocol?: { connected?: boolean } }).protocol;
  return protocol?.connected !== false;
}

/**
 * A service's own liveness and readiness over plain HTTP on `HEALTH_PORT` (off when 0). Services
 * serve their API over NATS only, and a request on `<svc>.cmd.health.v1` reaches any replica of
 * the queue group, so it cannot tell an orchestrator whether *this* process is alive or ready.
 * - `GET /livez`: 200 while the event loop answers.
 * - `GET /readyz`: 200 while subscribed and connected to NATS; 503 before that, while NATS is
 *   unreachable, and from SIGTERM on (the process drains).
 * - `GET /metrics`: the service's Prometheus metrics (service-metrics.ts).
 */
export function startProbeServer(port: number, service: string, state: ProbeState): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') return void serveMetrics(res);
    let status = 404;
    let body: object = { error: 'Not found: GET /livez, /readyz or /metrics' };
    if (req.method === 'GET' && path === '/livez') {
      status = 200;
      body = { status: 'ok', service };
    } else if (req.method === 'GET' && path === '/readyz') {
      const nats = natsConnected(state.nc);
      status = state.ready && nats ? 200 : 503;
      body = { status: status === 200 ? 'ok' : 'unavailable', service, draining: !state.ready, nats: nats ? 'ok' : 'down' };
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}

function serveMetrics(res: ServerResponse): void {
  serviceMetricsRegistry.metrics().then(
    (text) => res.writeHead(200, { 'content-type': serviceMetricsRegistry.contentType, 'cache-control': 'no-store' }).end(text),
    () => res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'Metrics could not be collected.' })),
  );
}
