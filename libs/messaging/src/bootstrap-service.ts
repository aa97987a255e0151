import { DynamicModule, INestMicroservice, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { ServiceName } from '@svc/contracts';
import { createLogger, PinoNestLogger } from '@svc/logging';
import { startTracing, stopTracing } from '@svc/tracing';
import { NatsConnection } from 'nats';
import { inFlight } from './in-flight';
import { NATS_CONNECTION, NATS_CONNECTION_OPTIONS } from './nats-connection';
import { ProbeState, startProbeServer } from './probe-server';
import { collectServiceDefaults } from './service-metrics';
import { RpcErrorFilter } from './rpc-error.filter';
import { SvcNatsServer } from './svc-nats.server';
import { WireDeserializer, WireSerializer } from './wire-serializers';
import { errorMessage } from '@svc/errors';

/** What every service's config carries for its lifecycle (libs/config commonEnv). */
export interface ServiceLifecycleConfig {
  NATS_URL: string;
  /** Bound on in-flight work at shutdown (handlers, streams), then on the shutdown hooks. */
  SHUTDOWN_GRACE_MS: number;
  /** Port of the /livez and /readyz probes; 0: none. */
  HEALTH_PORT: number;
}

/**
 * Starts a NATS-connected service: every @MessagePattern handler subscribes in the queue group
 * named after the service, so replicas share the load. SIGINT/SIGTERM shut it down gracefully
 * (docs/operations.md, "Lifecycle"): not ready at once, the queue subscriptions drain so the
 * other replicas take new messages, work in flight finishes within SHUTDOWN_GRACE_MS, then the
 * shutdown hooks run (BullMQ workers close, NATS drains) and the process exits 0.
 */
export async function bootstrapService(
  service: ServiceName,
  module: Type<unknown> | DynamicModule,
  natsUrlOrConfig: string | ServiceLifecycleConfig,
): Promise<INestMicroservice> {
  const config = typeof natsUrlOrConfig === 'string' ? { NATS_URL: natsUrlOrConfig, SHUTDOWN_GRACE_MS: 1_000, HEALTH_PORT: 0 } : natsUrlOrConfig;
  const logger = createLogger(service);
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
  const tracing = await startTracing(service);
  const server = new SvcNatsServer(
    Object.assign({}, NATS_CONNECTION_OPTIONS, {
      servers: config.NATS_URL.split(','),
      queue: service,
      name: `${service}-server`,
      gracefulShutdown: true,
      gracePeriod: config.SHUTDOWN_GRACE_MS,
      serializer: new WireSerializer(),
      deserializer: new WireDeserializer(),
    }),
  );
  // Probes first: alive while the modules start (migrations, model loads), ready once subscribed.
  const probes: ProbeState = { ready: false };
  if (config.HEALTH_PORT) collectServiceDefaults(service);
  const probeServer = config.HEALTH_PORT ? await startProbeServer(config.HEALTH_PORT, service, probes) : undefined;
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, { strategy: server, logger: new PinoNestLogger(logger) });
  // One connection per service: handlers' replies and the calls they make share socket writes.
  const nc = app.get<NatsConnection>(NATS_CONNECTION);
  server.useConnection(nc);
  app.useGlobalFilters(new RpcErrorFilter(logger));
  probes.nc = nc;
  await app.listen();
  // Ready only once NATS has registered every subscription, or early requests see no responders.
  await nc.flush();
  probes.ready = true;
  onShutdownSignal(async (signal) => {
    probes.ready = false;
    const startedAt = Date.now();
    logger.info({ signal, inFlight: inFlight.size, graceMs: config.SHUTDOWN_GRACE_MS }, `${service} shutting down: draining`);
    // A bound on the whole shutdown: in-flight work gets the grace period, the hooks as long again.
    const force = setTimeout(
      () => {
        logger.error({ inFlight: inFlight.size }, `${service} shutdown exceeded its bound; exiting`);
        process.exit(1);
      },
      2 * config.SHUTDOWN_GRACE_MS + 1_000,
    );
    force.unref();
    // Nest's close: the server first (subscriptions drain, in-flight work finishes), then the hooks.
    await app.close();
    probeServer?.close();
    await stopTracing();
    logger.info({ ms: Date.now() - startedAt, unfinished: inFlight.size }, `${service} stopped`);
    process.exit(0);
  });
  logger.info({ pid: process.pid, healthPort: config.HEALTH_PORT || undefined, tracing }, `${service} service ready`);
  return app;
}

/** Runs `stop` once, at the first SIGINT or SIGTERM; a second signal while it runs is ignored. */
function onShutdownSignal(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stop(signal).catch((err: unknown) => {
      process.stderr.write(`shutdown failed: ${errorMessage(err)}\n`);
      process.exit(1);
    });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** A service's `main`: validate config, start, and exit with a readable message on failure. */
export function runService<C extends ServiceLifecycleConfig>(service: ServiceName, loadConfig: () => C, module: (config: C) => DynamicModule): void {
  const start = async () => {
    const config = loadConfig();
    await bootstrapService(service, module(config), config);
  };
  start().catch((err: unknown) => {
    const message = errorMessage(err);
    process.stderr.write(message.startsWith(`${service}:`) ? `${message}\n` : `${service}: ${message}\n`);
    process.exit(1);
  });
}
