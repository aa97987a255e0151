import { randomBytes } from 'node:crypto';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { Bucket } from './limit-plan';
import { Decision, HitInfo } from './limiter.types';
import { LocalLimiter, replicaShare } from './local-limiter';
import { RateLease } from './rate-lease';
import { RedisAvailability } from './redis-availability';
import { LeaseAsk, RedisLimiter } from './redis-limiter';

/** A lease is granted only where every limit has this many times its slots left... */
const LEASE_SHARE = 16;
/** ...and only when that is at least this many slots (so never within 16 x 4 requests of a limit). */
const LEASE_LEAST = 4;
/** Leases live at most this share of the window, so a slot counted from its grant leaves the window after its request would. */
const LEASE_WINDOW_SHARE = 20;

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
export class RateLimiter implements OnModuleDestroy {
  private readonly shared: RedisLimiter;
  private readonly local: LocalLimiter;
  /** Open leases by the buckets they cover, and grants in flight (one at a time per bucket set). */
  private readonly leases = new Map<string, RateLease>();
  private readonly granting = new Map<string, Promise<unknown>>();
  private readonly leaseIdPrefix = `~${randomBytes(6).toString('base64url')}`;
  private leaseSeq = 0;
  private readonly leaseMs: number;

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
    const leaseMs = config.RATE_LIMIT_LEASE_MS;
    this.leaseMs = config.RATE_LIMIT_LEASE_MAX > 0 && leaseMs * LEASE_WINDOW_SHARE <= config.RATE_LIMIT_WINDOW_MS ? leaseMs : 0;
  }

  /**
   * `blockKey`: an abuse block read in the same Redis call (`decision.blockedUntil`; not in the
   * local fallback). Far from the limits a request is admitted from this replica's lease of the
   * buckets (no round trip), unless `leasable` is false: a caller that failed here lately, whose
   * block must be read (a block set by another replica takes effect here within RATE_LIMIT_LEASE_MS).
   */
  async admit(buckets: readonly Bucket[], member: string, cost: number, hit: HitInfo, blockKey?: string, leasable = true): Promise<Counted> {
    if (this.leaseMs === 0 || !leasable) return this.admitShared(buckets, member, cost, hit, blockKey, null);
    const key = leaseKey(buckets);
    const inFlight = this.granting.get(key);
    if (inFlight) await inFlight.catch(() => undefined);
    const leased = this.takeLeased(key, buckets, cost);
    if (leased) return leased;
    const closing = this.leases.get(key)?.closing;
    if (closing) await closing;
    if (this.granting.has(key)) return this.admit(buckets, member, cost, hit, blockKey, leasable);
    const grant = this.admitShared(buckets, member, cost, hit, blockKey, key);
    this.granting.set(key, grant);
    try {
      return await grant;
    } finally {
      this.granting.delete(key);
    }
  }

  private takeLeased(key: string, buckets: readonly Bucket[], cost: number): Counted | null {
    const lease = this.leases.get(key);
    if (!lease) return null;
    const taken = lease.take(cost, Date.now());
    if (lease.exhausted || !taken) this.close(key, lease);
    if (!taken) return null;
    const { slot, decision } = taken;
    return {
      decision: Object.assign({}, decision, { blockedUntil: null }),
      buckets,
      settle: async (tokens) => {
        if (lease.settle(slot, tokens)) return;
        void lease.closing?.then(() => this.settleShared(buckets, `${lease.id}:${slot}`, tokens));
      },
    };
  }

  private async admitShared(
    buckets: readonly Bucket[],
    member: string,
    cost: number,
    hit: HitInfo,
    blockKey: string | undefined,
    /** The buckets' lease key when this admission may take a lease; null when not. */
    leasing: string | null,
  ): Promise<Counted> {
    try {
      const ask: LeaseAsk | undefined =
        leasing !== null
          ? {
              id: `${this.leaseIdPrefix}${++this.leaseSeq}`,
              least: LEASE_LEAST,
              most: this.config.RATE_LIMIT_LEASE_MAX,
              share: LEASE_SHARE,
              lifeMs: this.leaseMs,
            }
          : undefined;
      const localBefore = Date.now();
      let answer = await this.availability.call('rate-limit admit', () => this.shared.admitLeasing(buckets, member, cost, hit, blockKey, ask));
      if (answer.curable && ask) {
        // Refused while another replica's lease holds slots it may not use: it closes within its lifetime.
        await new Promise((resolve) => setTimeout(resolve, this.leaseMs));
        answer = await this.availability.call('rate-limit admit', () => this.shared.admitLeasing(buckets, member, cost, hit, blockKey));
      }
      const { decision, grant } = answer;
      if (leasing !== null && ask && grant.slots > 0) this.open(leasing, buckets, ask.id, grant.slots, grant.tokens, decision, localBefore);
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

  private open(key: string, buckets: readonly Bucket[], id: string, slots: number, tokens: number | null, decision: Decision, localAt: number): void {
    const lease = new RateLease(
      buckets,
      id,
      slots,
      tokens,
      decision.now,
      localAt,
      localAt + this.leaseMs,
      decision.states,
      buckets.map((b) => b.limits.rpd !== null),
    );
    this.leases.set(key, lease);
    setTimeout(() => this.close(key, lease), this.leaseMs).unref();
  }

  /** Stops admitting from a lease and gives Redis its slots' times (not awaited by the request that closes it). */
  private close(key: string, lease: RateLease): void {
    if (lease.closing) return;
    lease.closing = this.availability
      .call('rate-limit lease close', () => this.shared.close(lease.buckets, lease.id, lease.grantedAt, lease.closedSlots()))
      .catch(() => undefined)
      .finally(() => {
        if (this.leases.get(key) === lease) this.leases.delete(key);
      });
  }

  /** Open leases give back what they did not use, so other replicas need not wait for their lifetime. */
  async onModuleDestroy(): Promise<void> {
    for (const [key, lease] of this.leases) this.close(key, lease);
    await Promise.all([...this.leases.values()].map((l) => l.closing));
  }

  private localBuckets(buckets: readonly Bucket[]): Bucket[] {
    // Every worker of every replica counts alone while Redis is down.
    const processes = this.config.RATE_LIMIT_FALLBACK_REPLICAS * this.config.GATEWAY_WORKERS;
    return buckets.map((b) => ({ ...b, limits: replicaShare(b.limits, processes) }));
  }
}

/** The buckets and their limits: after a limit changes, requests no longer take from a lease granted under the old one. */
const leaseKey = (buckets: readonly Bucket[]): string => buckets.map((b) => `${b.id}/${b.limits.rpm}/${b.limits.tpm}/${b.limits.rpd}`).join('|');
