import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { InFlight } from '@svc/messaging';
import { Logger } from '@svc/logging';
import { stopTracing } from '@svc/tracing';
import { GatewayLifecycle } from '../health/lifecycle';
import { errorMessage } from '@svc/errors';

/**
 * SIGINT/SIGTERM end the gateway gracefully (docs/operations.md, "Lifecycle"):
 * 1. `/readyz` answers 503 at once, so a load balancer stops sending new requests;
 * 2. Nest closes the app: requests still arriving get a 503 with `retry-after` and
 *    `connection: close` (closing.ts), requests and streams in flight finish; once none is left,
 *    or after `graceMs`, the remaining (idle keep-alive or stuck) connections are closed;
 * 3. the shutdown hooks settle or release credit holds and drain NATS; the process exits 0.
 * The whole shutdown is bounded (twice the grace period plus a second), then it exits 1.
 */
export function shutdownGracefully(app: NestFastifyApplication, logger: Logger, graceMs: number): void {
  const server = app.getHttpAdapter().getInstance().server;
  const requests = new InFlight();
  server.on('request', (_req, res) => res.once('close', requests.begin()));
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.get(GatewayLifecycle).draining = true;
    const startedAt = Date.now();
    logger.info({ signal, inFlight: requests.size, graceMs }, 'gateway shutting down: draining');
    setTimeout(
      () => {
        logger.error({ inFlight: requests.size }, 'gateway shutdown exceeded its bound; exiting');
        process.exit(1);
      },
      2 * graceMs + 1_000,
    ).unref();
    const closed = app.close();
    const finished = await requests.idle(graceMs);
    server.closeAllConnections();
    await closed;
    await stopTracing();
    logger.info({ ms: Date.now() - startedAt, cut: finished ? 0 : requests.size }, 'gateway stopped');
    process.exit(0);
  };
  const handler = (signal: NodeJS.Signals) => {
    stop(signal).catch((err: unknown) => {
      logger.error({ err: errorMessage(err) }, 'gateway shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
