import { LRUCache } from 'lru-cache';
import { Bucket, BucketLimits } from './limit-plan';
import { BucketState, Decision, Denial, LimiterBackend } from './limiter.types';

const DAY_MS = 86_400_000;

interface Entry {
  at: number;
  member: string;
  tokens: number;
}

interface Counter {
  entries: Entry[];
  used: number;
  day: number;
  dayCount: number;
}

export interface LocalLimiterOptions {
  windowMs: number;
  maxBuckets: number;
  clock?: () => number;
}

/** A replica's share of a limit while it counts alone (at least 1), so replicas together stay near the limit. */
export function replicaShare(limits: BucketLimits, replicas: number): BucketLimits {
  const part = (v: number | null) => (v === null ? null : Math.max(1, Math.floor(v / replicas)));
  return { rpm: part(limits.rpm), tpm: part(limits.tpm), rpd: part(limits.rpd) };
}

/**
 * The same sliding-window log as the Redis scripts, in this process only: the bounded fallback
 * while Redis is unreachable. Least recently used buckets are forgotten beyond `maxBuckets`.
 */
export class LocalLimiter implements LimiterBackend {
  private readonly counters: LRUCache<string, Counter>;
  private readonly clock: () => number;

  constructor(private readonly options: LocalLimiterOptions) {
    this.counters = new LRUCache({ max: options.maxBuckets });
    this.clock = options.clock ?? Date.now;
  }

  async admit(buckets: readonly Bucket[], member: string, cost: number): Promise<Decision> {
    const now = this.clock();
    const counters = buckets.map((b) => this.counter(b.id, now));
    let denial: Denial | undefined;
    buckets.forEach((bucket, i) => {
      if (denial) return;
      const { rpm, tpm, rpd } = bucket.limits;
      const c = counters[i];
      if (rpm !== null && c.entries.length + 1 > rpm) {
        denial = { bucket: i, kind: 'RPM', retryAt: c.entries[c.entries.length - rpm].at + this.options.windowMs };
      } else if (rpd !== null && c.dayCount + 1 > rpd) {
        denial = { bucket: i, kind: 'RPD', retryAt: (c.day + 1) * DAY_MS };
      } else if (tpm !== null && cost > 0 && c.used + cost > tpm) {
        denial = cost > tpm ? { bucket: i, kind: 'TOO_LARGE', retryAt: null } : { bucket: i, kind: 'TPM', retryAt: this.tokenRetryAt(c, c.used + cost - tpm) };
      }
    });
    if (!denial) {
      buckets.forEach((bucket, i) => {
        const c = counters[i];
        c.entries.push({ at: now, member, tokens: cost });
        c.used += cost;
        if (bucket.limits.rpd !== null) c.dayCount++;
      });
    }
    return { now, states: counters.map(stateOf), ...(denial ? { denial } : {}) };
  }

  async settle(buckets: readonly Bucket[], member: string, tokens: number | null): Promise<void> {
    for (const bucket of buckets) {
      const c = this.counters.get(bucket.id);
      const i = c ? c.entries.findIndex((e) => e.member === member) : -1;
      if (!c || i < 0) continue;
      const entry = c.entries[i];
      if (tokens === null) {
        c.entries.splice(i, 1);
        c.used -= entry.tokens;
        if (bucket.limits.rpd !== null && Math.floor(entry.at / DAY_MS) === c.day && c.dayCount > 0) c.dayCount--;
      } else {
        c.used += tokens - entry.tokens;
        entry.tokens = tokens;
      }
    }
  }

  async peek(buckets: readonly Bucket[]): Promise<Decision> {
    const now = this.clock();
    return { now, states: buckets.map((b) => stateOf(this.counter(b.id, now))) };
  }

  forget(): void {
    this.counters.clear();
  }

  private counter(id: string, now: number): Counter {
    let c = this.counters.get(id);
    if (!c) {
      c = { entries: [], used: 0, day: Math.floor(now / DAY_MS), dayCount: 0 };
      this.counters.set(id, c);
    }
    const cutoff = now - this.options.windowMs;
    let drop = 0;
    while (drop < c.entries.length && c.entries[drop].at <= cutoff) c.used -= c.entries[drop++].tokens;
    if (drop > 0) c.entries.splice(0, drop);
    const day = Math.floor(now / DAY_MS);
    if (day !== c.day) {
      c.day = day;
      c.dayCount = 0;
    }
    return c;
  }

  private tokenRetryAt(c: Counter, excess: number): number {
    let freed = 0;
    for (const e of c.entries) {
      freed += e.tokens;
      if (freed >= excess) return e.at + this.options.windowMs;
    }
    return (c.entries.at(-1)?.at ?? this.clock()) + this.options.windowMs;
  }
}

function stateOf(c: Counter): BucketState {
  return { count: c.entries.length, used: c.used, dayCount: c.dayCount, oldestAt: c.entries[0]?.at ?? null };
}
