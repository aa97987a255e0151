import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { Logger } from '@svc/logging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';
import { REDIS } from '../redis/redis.module';
import { coalesceRedisWrites } from './redis-writes';

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/**
 * The rate limiter's and abuse protection's view of Redis: calls fail fast (not connected, or
 * slower than RATE_LIMIT_REDIS_TIMEOUT_MS) so callers fall back; the switch to the fallback and
 * back is logged once each way. ioredis reconnects by itself; the first call that succeeds after
 * an outage ends the degraded mode.
 */
/** How long boot waits for the first Redis connection before serving in degraded mode. */
const BOOT_WAIT_MS = 3_000;

@Injectable()
export class RedisAvailability implements OnModuleInit {
  private degradedSince: number | null = null;
  private readonly recoveryListeners: Array<() => void> = [];

  constructor(
    @Inject(REDIS) readonly redis: Redis,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {
    coalesceRedisWrites(redis);
  }

  /** Serve from the start on Redis when it is there, instead of starting degraded while it connects. */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') return;
    let done = () => undefined as void;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), BOOT_WAIT_MS);
      done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      this.redis.once('ready', done);
    });
  }

  get degraded(): boolean {
    return this.degradedSince !== null;
  }

  onRecovery(listener: () => void): void {
    this.recoveryListeners.push(listener);
  }

  /** Runs a Redis call, or throws RedisUnavailableError (and enters degraded mode) when it cannot. */
  async call<T>(what: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.redis.status !== 'ready') throw this.down(what, new Error(`connection ${this.redis.status}`));
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = await Promise.race([
        fn(this.redis),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.config.RATE_LIMIT_REDIS_TIMEOUT_MS} ms`)),
            this.config.RATE_LIMIT_REDIS_TIMEOUT_MS,
          );
        }),
      ]);
      if (this.degradedSince !== null) this.up();
      return result;
    } catch (err) {
      throw this.down(what, err);
    } finally {
      clearTimeout(timer);
    }
  }

  private down(what: string, err: unknown): RedisUnavailableError {
    const message = err instanceof Error ? err.message : String(err);
    if (this.degradedSince === null) {
      this.degradedSince = Date.now();
      this.logger.error(
        { op: what, err: message },
        'rate limits and abuse protection degraded: Redis unavailable; local fallback for authenticated requests, requests without a key refused',
      );
    }
    return new RedisUnavailableError(message);
  }

  private up(): void {
    const downMs = Date.now() - (this.degradedSince ?? Date.now());
    this.degradedSince = null;
    this.logger.warn({ downMs }, 'rate limits and abuse protection back on Redis');
    for (const listener of this.recoveryListeners) listener();
  }
}
