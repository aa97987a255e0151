import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { NatsConnection } from 'nats';
import { ServiceName } from '@svc/contracts';
import { connectNats, NATS_CONNECTION } from './nats-connection';
import { RpcClient, RpcObserver } from './rpc-client';
import { createHealthController, HEALTH_CHECKS, HealthChecks } from './health.controller';

export interface MessagingModuleOptions {
  name: string;
  natsUrl: string;
  rpcTimeoutMs: number;
  /** Heartbeats for every call whose timeout is longer than this (RpcClient `longCallIdleMs`). */
  longCallIdleMs?: number;
  /** Told every call's round trip (RpcClient `observer`), e.g. metrics. */
  rpcObserver?: RpcObserver;
  /** When set, registers the service's health handler with these checks. */
  health?: { service: ServiceName; checks?: Provider<HealthChecks> };
}

/**
 * A NATS connection for code that publishes or subscribes outside @MessagePattern handlers
 * (stream frames, events, outgoing calls), plus the typed RpcClient.
 */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(options: MessagingModuleOptions): DynamicModule {
    const providers: Provider[] = [
      { provide: NATS_CONNECTION, useFactory: () => connectNats(options.natsUrl, options.name) },
      {
        provide: RpcClient,
        inject: [NATS_CONNECTION],
        useFactory: (nc: NatsConnection) => new RpcClient(nc, options.rpcTimeoutMs, options.longCallIdleMs, options.rpcObserver),
      },
      {
        provide: 'NATS_CONNECTION_CLOSER',
        inject: [NATS_CONNECTION, RpcClient],
        useFactory: (nc: NatsConnection, rpc: RpcClient) => ({
          onApplicationShutdown: () => {
            rpc.close();
            return nc.drain().catch(() => undefined);
          },
        }),
      },
    ];
    const controllers = [];
    if (options.health) {
      providers.push(options.health.checks ?? { provide: HEALTH_CHECKS, useValue: {} });
      controllers.push(createHealthController(options.health.service));
    }
    return { module: MessagingModule, providers, controllers, exports: [NATS_CONNECTION, RpcClient] };
  }
}
