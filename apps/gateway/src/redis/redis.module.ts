import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { Logger } from '@svc/logging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';

export const REDIS = Symbol('REDIS');

/**
 * One Redis connection for the gateway's shared state (rate limits, abuse blocks, caches).
 * Commands fail fast while Redis is down (no offline queue), so callers can degrade instead of hang.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (config: GatewayConfig, logger: Logger) => {
        const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, lazyConnect: false });
        let down = false;
        redis.on('error', (err: Error) => {
          if (!down) logger.error({ err: err.message }, 'redis unavailable');
          down = true;
        });
        redis.on('ready', () => {
          if (down) logger.warn('redis available again');
          down = false;
        });
        return redis;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
