import { DynamicModule, INestMicroservice, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { ServiceName } from '@svc/contracts';
import { createLogger, PinoNestLogger } from '@svc/logging';
import { NatsConnection } from 'nats';
import { NATS_CONNECTION, NATS_CONNECTION_OPTIONS } from './nats-connection';
import { RpcErrorFilter } from './rpc-error.filter';
import { SvcNatsServer } from './svc-nats.server';

/**
 * Starts a NATS-connected service: every @MessagePattern handler subscribes in the queue group
 * named after the service, so replicas share the load. SIGINT/SIGTERM drain and exit.
 */
export async function bootstrapService(service: ServiceName, module: Type<unknown> | DynamicModule, natsUrl: string): Promise<INestMicroservice> {
  const logger = createLogger(service);
  const server = new SvcNatsServer({
    ...NATS_CONNECTION_OPTIONS,
    servers: natsUrl.split(','),
    queue: service,
    name: `${service}-server`,
    gracefulShutdown: true,
    gracePeriod: 1_000,
  });
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, { strategy: server, logger: new PinoNestLogger(logger) });
  // One connection per service: handlers' replies and the calls they make share socket writes.
  server.useConnection(app.get<NatsConnection>(NATS_CONNECTION));
  app.useGlobalFilters(new RpcErrorFilter(logger));
  app.enableShutdownHooks(['SIGINT', 'SIGTERM']);
  await app.listen();
  // Ready only once NATS has registered every subscription, or early requests see no responders.
  await app.unwrap<NatsConnection>().flush();
  logger.info({ pid: process.pid }, `${service} service ready`);
  return app;
}

/** A service's `main`: validate config, start, and exit with a readable message on failure. */
export function runService<C extends { NATS_URL: string }>(service: ServiceName, loadConfig: () => C, module: (config: C) => DynamicModule): void {
  const start = async () => {
    const config = loadConfig();
    await bootstrapService(service, module(config), config.NATS_URL);
  };
  start().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(message.startsWith(`${service}:`) ? `${message}\n` : `${service}: ${message}\n`);
    process.exit(1);
  });
}
