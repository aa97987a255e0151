import { performance } from 'node:perf_hooks';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { Logger } from '@svc/logging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';
import { REDIS } from '../redis/redis.module';
import { coalesceRedisWrites } from './redis-writes';
import { errorMessage } from '@svc/errors';

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
    let cancel = () => undefined as void;
    try {
      const result = await Promise.race([
        fn(this.redis),
        new Promise<never>((_, reject) => {
          const ms = this.config.RATE_LIMIT_REDIS_TIMEOUT_MS;
          cancel = afterFreeLoopTime(ms, () => reject(new Error(`no answer within ${ms} ms`)));
        }),
      ]);
      if (this.degradedSince !== null) this.up();
      return result;
    } catch (err) {
      throw this.down(what, err);
    } finally {
      cancel();
    }
  }

  private down(what: string, err: unknown): RedisUnavailableError {
    const message = errorMessage(err);
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

/**
 * Calls `onTimeout` once `ms` passed with the event loop free to hear the answer. After a long
 * synchronous stretch (a large document built, a GC pause) the timer comes due before the command
 * was even written (writes leave at the end of the turn) or before its reply was read (timers run
 * before I/O): a timer that fires that late waits another period (up to 3 times), and the last
 * check runs after the I/O phase (setImmediate). Returns the cancel function.
 */
function afterFreeLoopTime(ms: number, onTimeout: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const arm = (extensions: number) => {
    const due = performance.now() + ms;
    timer = setTimeout(() => {
      if (extensions > 0 && performance.now() - due > ms / 2) arm(extensions - 1);
      else immediate = setImmediate(onTimeout);
    }, ms);
  };
  arm(3);
  return () => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  };
}
