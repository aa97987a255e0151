import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { Bucket } from './limit-plan';
import { Decision, HitInfo } from './limiter.types';
import { LocalLimiter, replicaShare } from './local-limiter';
import { RedisAvailability } from './redis-availability';
import { RedisLimiter } from './redis-limiter';

/** An admission decision and where it was counted, so settlement goes to the same place. */
export interface Counted {
  decision: Decision;
  /** The buckets as enforced (in the local fallback: this replica's share of each limit). */
  buckets: readonly Bucket[];
  settle(tokens: number | null): Promise<void>;
}

/**
 * Chooses the counter: Redis (shared by every replica, exact), or while Redis is unreachable a
 * bounded in-process fallback that enforces limit / RATE_LIMIT_FALLBACK_REPLICAS. The fallback's
 * counts are dropped when Redis is back.
 */
@Injectable()
export class RateLimiter {
  private readonly shared: RedisLimiter;
  private readonly local: LocalLimiter;

  constructor(
    private readonly availability: RedisAvailability,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.shared = new RedisLimiter(availability.redis, {
      prefix: config.REDIS_KEY_PREFIX,
      windowMs: config.RATE_LIMIT_WINDOW_MS,
      logSize: config.RATE_LIMIT_LOG_SIZE,
    });
    this.local = new LocalLimiter({ windowMs: config.RATE_LIMIT_WINDOW_MS, maxBuckets: config.RATE_LIMIT_FALLBACK_MAX_BUCKETS });
    availability.onRecovery(() => this.local.forget());
  }

  /** `blockKey`: an abuse block read in the same Redis call (`decision.blockedUntil`; not in the local fallback). */
  async admit(buckets: readonly Bucket[], member: string, cost: number, hit: HitInfo, blockKey?: string): Promise<Counted> {
    try {
      const decision = await this.availability.call('rate-limit admit', () => this.shared.admit(buckets, member, cost, hit, blockKey));
      return {
        decision,
        buckets,
        settle: async (tokens) => {
          this.settleShared(buckets, member, tokens);
        },
      };
    } catch {
      const own = this.localBuckets(buckets);
      const decision = await this.local.admit(own, member, cost);
      return { decision, buckets: own, settle: (tokens) => this.local.settle(own, member, tokens) };
    }
  }

  /** The counters' state without counting anything (headers of non-inference responses). */
  async peek(buckets: readonly Bucket[]): Promise<{ decision: Decision; buckets: readonly Bucket[] }> {
    try {
      return { decision: await this.availability.call('rate-limit peek', () => this.shared.peek(buckets)), buckets };
    } catch {
      const own = this.localBuckets(buckets);
      return { decision: await this.local.peek(own), buckets: own };
    }
  }

  /**
   * Not awaited, and written right after the response (setImmediate), off the response's path.
   * A next request of the same client needs a network round trip and its own Redis calls, so its
   * admission is counted after the correction. Redis down since admission: the correction is
   * lost; the request leaves the window anyway.
   */
  private settleShared(buckets: readonly Bucket[], member: string, tokens: number | null): void {
    setImmediate(() => {
      this.availability.call('rate-limit settle', () => this.shared.settle(buckets, member, tokens)).catch(() => undefined);
    });
  }

  private localBuckets(buckets: readonly Bucket[]): Bucket[] {
    return buckets.map((b) => ({ ...b, limits: replicaShare(b.limits, this.config.RATE_LIMIT_FALLBACK_REPLICAS) }));
  }
}
