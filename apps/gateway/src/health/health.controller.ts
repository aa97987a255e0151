import { Controller, Get, Inject, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import Redis from 'ioredis';
import { NatsConnection } from 'nats';
import { HealthReply, healthSubject, SERVICE_NAMES } from '@svc/contracts';
import { NATS_CONNECTION, natsConnected, RpcClient } from '@svc/messaging';
import { SERVICE_VERSION } from '@svc/headers';
import { Public } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { REDIS } from '../redis/redis.module';
import { GatewayLifecycle } from './lifecycle';
import { errorMessage } from '@svc/errors';

type ServiceStatus = Pick<HealthReply, 'status' | 'checks'> | { status: 'unavailable'; error: string };

/**
 * Probes (docs/operations.md, "Health"), outside /api/v1 and without a key:
 * - `GET /livez`: 200 while the event loop answers (Kubernetes liveness);
 * - `GET /readyz`: 200 while the gateway can serve: connected to NATS and not shutting down
 *   (readiness). A missing model service does not make it unready: its routes answer 503 while
 *   the rest are served. Redis is reported, not required: rate limits and caches degrade without it.
 * - `GET /healthz`: a report of every service over NATS; 503 naming the ones that do not answer.
 */
@Controller()
export class HealthController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly lifecycle: GatewayLifecycle,
  ) {}

  @Public()
  @Get('livez')
  live(@Res({ passthrough: true }) reply: FastifyReply) {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  }

  @Public()
  @Get('readyz')
  ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const nats = natsConnected(this.nc);
    const ready = nats && !this.lifecycle.draining;
    reply.status(ready ? 200 : 503).header('cache-control', 'no-store');
    if (!ready) reply.header('retry-after', '1');
    const redis = this.redis.status === 'ready' ? 'ok' : 'down';
    return { status: ready ? 'ok' : 'unavailable', version: SERVICE_VERSION, draining: this.lifecycle.draining, nats: nats ? 'ok' : 'down', redis };
  }

  @Public()
  @Get('healthz')
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const results = await Promise.all(
      SERVICE_NAMES.map(async (name): Promise<[string, ServiceStatus]> => {
        try {
          const res = await this.rpc.send(healthSubject(name), {}, { timeoutMs: this.config.HEALTH_TIMEOUT_MS });
          return [name, { status: res.status, checks: res.checks }];
        } catch (err) {
          return [name, { status: 'unavailable', error: errorMessage(err) }];
        }
      }),
    );
    const missing = results.filter(([, s]) => s.status === 'unavailable').map(([name]) => name);
    reply.status(missing.length ? 503 : 200).header('cache-control', 'no-store');
    return { status: missing.length ? 'unavailable' : 'ok', version: SERVICE_VERSION, missing, services: Object.fromEntries(results) };
  }
}
