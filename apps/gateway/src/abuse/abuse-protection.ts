import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Logger } from '@svc/logging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';
import { LuaScript } from '../rate-limit/lua-script';
import { RedisAvailability } from '../rate-limit/redis-availability';
import { hitLogKey } from '../rate-limit/redis-limiter';
import { FAIL_LUA } from './abuse.scripts';
import { CallerIdentity, ipIdentity, keyIdentity } from './caller-identity';
import { AbuseRules, LocalAbuseTracker } from './local-abuse-tracker';

const FAIL = new LuaScript(FAIL_LUA);
const LOG_TTL_SECONDS = 7 * 24 * 3600;
/** Secret hashes seen to authenticate recently, so an address block does not lock out working keys behind it. */
const VERIFIED_MAX = 100_000;
const VERIFIED_TTL_MS = 3_600_000;

export type AbuseVerdict = { verdict: 'pass' } | { verdict: 'blocked'; liftAt: number; identity: CallerIdentity } | { verdict: 'unavailable' };

/** What a block of an API key records in its account's rate-limit log. */
export interface FailureContext {
  accountId: string;
  apiKeyId: string;
  modelId: string;
  apiTier: string;
}

/**
 * The spec's abuse block: more than ABUSE_MAX_FAILURES non-success answers within ABUSE_WINDOW_MS
 * block the caller for ABUSE_BLOCK_MS, shared by every replica through Redis. While Redis is
 * unreachable: callers without a key are refused (fail closed), callers with a key are tracked by
 * a bounded per-process fallback.
 */
@Injectable()
export class AbuseProtection {
  private readonly rules: AbuseRules;
  private readonly local: LocalAbuseTracker;
  private readonly verified = new LRUCache<string, true>({ max: VERIFIED_MAX, ttl: VERIFIED_TTL_MS });
  /** Keys that failed here within a window and a block: admission reads their block in Redis, never from a lease. */
  private readonly failing: LRUCache<string, true>;

  constructor(
    private readonly availability: RedisAvailability,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {
    this.rules = { maxFailures: config.ABUSE_MAX_FAILURES, windowMs: config.ABUSE_WINDOW_MS, blockMs: config.ABUSE_BLOCK_MS };
    this.local = new LocalAbuseTracker(this.rules, config.RATE_LIMIT_FALLBACK_MAX_BUCKETS);
    this.failing = new LRUCache({ max: VERIFIED_MAX, ttl: config.ABUSE_WINDOW_MS + config.ABUSE_BLOCK_MS });
    availability.onRecovery(() => this.local.forget());
  }

  get blockSeconds(): number {
    return Math.ceil(this.rules.blockMs / 1000);
  }

  get maxFailures(): number {
    return this.rules.maxFailures;
  }

  /**
   * Before authentication: is this caller blocked? A key is refused when its own block holds; an
   * address block refuses requests without a key, and requests whose key was not seen to work.
   */
  async check(ip: string, secretHash: string | undefined): Promise<AbuseVerdict> {
    const address = ipIdentity(ip);
    const key = secretHash === undefined ? undefined : keyIdentity(secretHash);
    let addressLift: number | null;
    let keyLift: number | null = null;
    try {
      const values = await this.availability.call('abuse check', (redis) =>
        key ? redis.mget(this.blockKey(address), this.blockKey(key)) : redis.mget(this.blockKey(address)),
      );
      addressLift = values[0] === null ? null : Number(values[0]);
      if (key) keyLift = values[1] === null ? null : Number(values[1]);
    } catch {
      if (!key) return { verdict: 'unavailable' };
      addressLift = this.local.liftAt(address);
      keyLift = this.local.liftAt(key);
    }
    if (key && keyLift !== null) return { verdict: 'blocked', liftAt: keyLift, identity: key };
    if (addressLift !== null && !(secretHash !== undefined && this.verified.has(secretHash)))
      return { verdict: 'blocked', liftAt: addressLift, identity: address };
    return { verdict: 'pass' };
  }

  /**
   * For a key this replica has seen authenticate, only the key's own block can refuse it (address
   * blocks do not apply to it): the Redis key holding that block, to read with another call.
   */
  keyBlockKey(secretHash: string): string {
    return this.blockKey(keyIdentity(secretHash));
  }

  /** The verdict from the key block's value read elsewhere; undefined when the key is no longer known to work (then `check`). */
  keyVerdict(secretHash: string, liftAt: number | null): AbuseVerdict | undefined {
    if (!this.verified.has(secretHash)) return undefined;
    return liftAt === null ? { verdict: 'pass' } : { verdict: 'blocked', liftAt, identity: keyIdentity(secretHash) };
  }

  /** The key with this secret hash authenticated (its requests pass an address block). */
  authenticated(secretHash: string): void {
    this.verified.set(secretHash, true);
  }

  isAuthenticated(secretHash: string): boolean {
    return this.verified.has(secretHash);
  }

  /** Whether the key failed on this replica lately (so a block of it may be on its way). */
  failedRecently(secretHash: string): boolean {
    return this.failing.has(keyIdentity(secretHash));
  }

  /** Counts a non-success answer for the caller; starts a block when it is one too many. */
  async failed(identity: CallerIdentity, requestId: string, context?: FailureContext): Promise<void> {
    this.failing.set(identity, true);
    let liftAt: number | null;
    try {
      const [state, value] = (await this.availability.call('abuse failure', (redis) =>
        FAIL.run(
          redis,
          [this.failuresKey(identity), this.blockKey(identity), hitLogKey(this.config.REDIS_KEY_PREFIX, context?.accountId ?? '-')],
          [
            this.rules.windowMs,
            this.rules.maxFailures,
            this.rules.blockMs,
            requestId,
            context?.apiKeyId ?? '',
            context?.modelId ?? '',
            context?.apiTier ?? '',
            this.config.RATE_LIMIT_LOG_SIZE,
            LOG_TTL_SECONDS,
          ],
        ),
      )) as number[];
      liftAt = state === 1 ? value : null;
    } catch {
      liftAt = this.local.fail(identity);
    }
    if (liftAt !== null) {
      const who = identity.startsWith('key:') ? { accountId: context?.accountId, apiKeyId: context?.apiKeyId } : { caller: identity };
      this.logger.warn(
        { requestId, ...who, type: 'FAILED_REQUESTS', liftAt: new Date(liftAt).toISOString(), shared: !this.availability.degraded },
        'abuse block',
      );
    }
  }

  private blockKey(identity: CallerIdentity): string {
    return `${this.config.REDIS_KEY_PREFIX}ab:b:${identity}`;
  }

  private failuresKey(identity: CallerIdentity): string {
    return `${this.config.REDIS_KEY_PREFIX}ab:f:${identity}`;
  }
}
