import { Controller, Inject, Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { HealthReply, healthSubject, ServiceName } from '@svc/contracts';
import { SERVICE_VERSION } from '@svc/headers';
import { errorMessage } from '@svc/errors';

export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');

/** A dependency check: resolves to a short status ('ok'), rejects or returns another word when unhealthy. */
export type HealthCheck = () => Promise<string>;
export type HealthChecks = Record<string, HealthCheck>;

const startedAt = Date.now();

/** Builds the `<svc>.cmd.health.v1` handler for one service. */
export function createHealthController(service: ServiceName): Type<unknown> {
  @Controller()
  class HealthController {
    constructor(@Inject(HEALTH_CHECKS) private readonly checks: HealthChecks) {}

    @MessagePattern(healthSubject(service))
    async health(): Promise<HealthReply> {
      const entries = await Promise.all(
        Object.entries(this.checks).map(async ([name, check]) => {
          try {
            return [name, await check()] as const;
          } catch (err) {
            return [name, `failing: ${errorMessage(err)}`] as const;
          }
        }),
      );
      const checks = Object.fromEntries(entries);
      const status = entries.every(([, v]) => v === 'ok') ? 'ok' : 'degraded';
      return { service, status, version: SERVICE_VERSION, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000), checks };
    }
  }
  return HealthController;
}
