import { Controller, Get, Inject, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { HealthReply, healthSubject, SERVICE_NAMES } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { SERVICE_VERSION } from '@svc/headers';
import { Public } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';

type ServiceStatus = Pick<HealthReply, 'status' | 'checks'> | { status: 'unavailable'; error: string };

/** `GET /healthz`: 200 when every service answers over NATS, 503 naming the ones that do not. */
@Controller()
export class HealthController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Public()
  @Get('healthz')
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const results = await Promise.all(
      SERVICE_NAMES.map(async (name): Promise<[string, ServiceStatus]> => {
        try {
          const res = await this.rpc.send(healthSubject(name), {}, { timeoutMs: this.config.HEALTH_TIMEOUT_MS });
          return [name, { status: res.status, checks: res.checks }];
        } catch (err) {
          return [name, { status: 'unavailable', error: err instanceof Error ? err.message : String(err) }];
        }
      }),
    );
    const missing = results.filter(([, s]) => s.status === 'unavailable').map(([name]) => name);
    reply.status(missing.length ? 503 : 200).header('cache-control', 'no-store');
    return { status: missing.length ? 'unavailable' : 'ok', version: SERVICE_VERSION, missing, services: Object.fromEntries(results) };
  }
}
