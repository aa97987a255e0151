import 'reflect-metadata';
import cluster from 'node:cluster';
import { createLogger } from '@svc/logging';
import { startTracing } from '@svc/tracing';
import { loadGatewayConfig } from './config';
import { runGatewayPrimary } from './cluster/gateway-primary';
import { errorMessage } from '@svc/errors';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  // Several workers behind one port (docs/operations.md, "Gateway workers"): the primary only forks and watches them.
  if (config.GATEWAY_WORKERS > 1 && cluster.isPrimary) return runGatewayPrimary(config.GATEWAY_WORKERS, config.SHUTDOWN_GRACE_MS, logger);
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
  const tracing = await startTracing('gateway');
  const { createGatewayApp } = await import('./app/create-app');
  const { shutdownGracefully } = await import('./app/graceful-shutdown');
  const app = await createGatewayApp(config, logger);
  shutdownGracefully(app, logger, config.SHUTDOWN_GRACE_MS);
  await app.listen(config.PORT, config.HOST);
  logger.info(
    { port: config.PORT, tracing, worker: cluster.isWorker ? cluster.worker?.id : undefined },
    `gateway listening on http://${config.HOST}:${config.PORT}/api/v1`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway: ${errorMessage(err)}\n`);
  process.exit(1);
});
