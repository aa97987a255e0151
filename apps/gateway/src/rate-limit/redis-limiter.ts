import Redis from 'ioredis';
import { Bucket } from './limit-plan';
import { BucketState, Decision, DenialKind, HitInfo, LimiterBackend } from './limiter.types';
import { LuaScript } from './lua-script';
import { ADMIT_LUA, CLOSE_LUA, PEEK_LUA, SETTLE_LUA } from './rate-limit.scripts';

const ADMIT = new LuaScript(ADMIT_LUA);
const CLOSE = new LuaScript(CLOSE_LUA);
const SETTLE = new LuaScript(SETTLE_LUA);
const PEEK = new LuaScript(PEEK_LUA);
const KINDS: Record<number, DenialKind> = { 1: 'RPM', 2: 'RPD', 3: 'TPM', 4: 'TOO_LARGE' };
/** Hits stay listed this long after an account's last one. */
const LOG_TTL_SECONDS = 7 * 24 * 3600;

export interface RedisLimiterOptions {
  prefix: string;
  windowMs: number;
  logSize: number;
}

/** A lease asked for with an admission: slots at most, granted only with share x slots left in every limit. */
export interface LeaseAsk {
  id: string;
  /** Fewest and most slots: fewer than `least` left to grant is no lease. */
  least: number;
  most: number;
  share: number;
  lifeMs: number;
}

/** What an admission that asked for a lease got. */
export interface LeaseGrant {
  /** Slots granted (0 = none). */
  slots: number;
  /** Tokens granted; null where no bucket limits tokens. */
  tokens: number | null;
}

/** A closed lease's slots, in order: admission time (Redis's clock) and tokens, or null when unused or released. */
export type ClosedSlot = { at: number; tokens: number } | null;

export const hitLogKey = (prefix: string, accountId: string): string => `${prefix}rl:log:${accountId}`;

/** The shared limiter: every replica runs the same atomic scripts against one Redis. */
export class RedisLimiter implements LimiterBackend {
  constructor(
    private readonly redis: Redis,
    private readonly options: RedisLimiterOptions,
  ) {}

  /** With `blockKey`, also reads that abuse block first: when it is set, nothing is counted (`blockedUntil`). */
  async admit(buckets: readonly Bucket[], member: string, cost: number, hit: HitInfo, blockKey?: string): Promise<Decision> {
    return (await this.admitLeasing(buckets, member, cost, hit, blockKey)).decision;
  }

  /**
   * `admit`, also asking for a lease: granted only to an admitted request, far from every limit.
   * `curable`: a refusal in a bucket where another lease is open, which may not stand once it closes.
   */
  async admitLeasing(
    buckets: readonly Bucket[],
    member: string,
    cost: number,
    hit: HitInfo,
    blockKey?: string,
    ask?: LeaseAsk,
  ): Promise<{ decision: Decision; grant: LeaseGrant; curable: boolean }> {
    const keys = this.keysOf(buckets);
    keys.push(hitLogKey(this.options.prefix, hit.accountId));
    if (blockKey !== undefined) keys.push(blockKey);
    const args: Array<string | number> = [
      member,
      cost,
      this.options.windowMs,
      buckets.length,
      hit.apiKeyId,
      hit.modelId,
      hit.apiTier,
      this.options.logSize,
      LOG_TTL_SECONDS,
    ];
    for (const { limits } of buckets) args.push(limits.rpm ?? -1, limits.tpm ?? -1, limits.rpd ?? -1);
    args.push(ask?.id ?? '', ask?.most ?? 0, ask?.share ?? 1, ask?.lifeMs ?? 0, ask?.least ?? 1);
    const out = (await ADMIT.run(this.redis, keys, args)) as number[];
    if (out[0] < 0) return { decision: { now: out[3], states: [], blockedUntil: out[2] }, grant: { slots: 0, tokens: null }, curable: false };
    const decision = decode(out, buckets.length);
    if (blockKey !== undefined) decision.blockedUntil = null;
    const at = 4 + buckets.length * 4;
    return { decision, grant: { slots: out[at], tokens: out[at + 1] < 0 ? null : out[at + 1] }, curable: out[at + 2] === 1 };
  }

  /** Rescores a lease's used slots to their admission times and removes the others. */
  async close(buckets: readonly Bucket[], leaseId: string, grantedAt: number, slots: readonly ClosedSlot[]): Promise<void> {
    const args: Array<string | number> = [leaseId, slots.length, grantedAt, buckets.length];
    for (const slot of slots) args.push(slot?.at ?? -1, slot?.tokens ?? 0);
    await CLOSE.run(this.redis, this.keysOf(buckets), args);
  }

  async settle(buckets: readonly Bucket[], member: string, tokens: number | null): Promise<void> {
    await SETTLE.run(this.redis, this.keysOf(buckets), [member, tokens ?? -1, buckets.length]);
  }

  async peek(buckets: readonly Bucket[]): Promise<Decision> {
    const args: Array<string | number> = [this.options.windowMs, buckets.length, ...buckets.map((b) => b.limits.rpd ?? -1)];
    return decode((await PEEK.run(this.redis, this.keysOf(buckets), args)) as number[], buckets.length);
  }

  private keysOf(buckets: readonly Bucket[]): string[] {
    const keys: string[] = [];
    for (const { id } of buckets) {
      const base = `${this.options.prefix}rl:${id}`;
      keys.push(`${base}:r`, `${base}:t`, `${base}:d`, `${base}:l`);
    }
    return keys;
  }
}

function decode(out: number[], n: number): Decision {
  const [denied, kind, retryAt, now] = out;
  const states: BucketState[] = [];
  for (let i = 0; i < n; i++) {
    const at = 4 + i * 4;
    states.push({ count: out[at], used: out[at + 1], dayCount: out[at + 2], oldestAt: out[at + 3] < 0 ? null : out[at + 3] });
  }
  const decision: Decision = { now, states };
  if (denied > 0) decision.denial = { bucket: denied - 1, kind: KINDS[kind], retryAt: retryAt < 0 ? null : retryAt };
  return decision;
}
