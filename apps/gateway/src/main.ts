import 'reflect-metadata';
import { createLogger } from '@svc/logging';
import { loadGatewayConfig } from './config';
import { createGatewayApp } from './http/create-app';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const app = await createGatewayApp(config, logger);
  await app.listen(config.PORT, config.HOST);
  logger.info({ port: config.PORT }, `gateway listening on http://${config.HOST}:${config.PORT}/api/v1`);
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
