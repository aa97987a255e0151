import 'reflect-metadata';
import { createLogger } from '@svc/logging';
import { startTracing } from '@svc/tracing';
import { loadGatewayConfig } from './config';
import { createGatewayApp } from './app/create-app';
import { shutdownGracefully } from './app/graceful-shutdown';
import { errorMessage } from '@svc/errors';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
  const tracing = await startTracing('gateway');
  const app = await createGatewayApp(config, logger);
  shutdownGracefully(app, logger, config.SHUTDOWN_GRACE_MS);
  await app.listen(config.PORT, config.HOST);
  logger.info({ port: config.PORT, tracing }, `gateway listening on http://${config.HOST}:${config.PORT}/api/v1`);
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway: ${errorMessage(err)}\n`);
  process.exit(1);
});
