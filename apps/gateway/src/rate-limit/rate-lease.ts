import { Bucket } from './limit-plan';
import { BucketState, Decision } from './limiter.types';
import { ClosedSlot } from './redis-limiter';

interface Slot {
  /** This process's clock when the request was admitted. */
  localAt: number;
  /** The request's reservation, then what it used; 0 once released. */
  tokens: number;
  released: boolean;
}

/**
 * Slots of a set of buckets held by this replica (docs/rate-limits.md, "Leases"): Redis counts
 * them as admitted from the grant on, so the replica admits from them without a round trip.
 * Headers are the grant's counts with the unused slots taken out, so on one replica they count
 * down exactly as the per-request path does.
 */
export class RateLease {
  private readonly used: Slot[] = [];
  private spent = 0;
  /** Set once the lease stops admitting; resolves when Redis has its slots' times. */
  closing: Promise<void> | null = null;

  constructor(
    readonly buckets: readonly Bucket[],
    readonly id: string,
    readonly slots: number,
    /** Tokens granted; null where no bucket limits tokens. */
    readonly tokens: number | null,
    /** The grant's time on Redis's clock, and on this process's. */
    readonly grantedAt: number,
    private readonly grantedLocal: number,
    readonly expiresLocal: number,
    /** The buckets' states at the grant: the granting request counted, the slots not. */
    private readonly states: readonly BucketState[],
    private readonly rpdBuckets: readonly boolean[],
  ) {}

  /** Admits a request from the lease: its slot (1-based, the Redis member's suffix) and decision, or null when it does not fit. */
  take(cost: number, now: number): { slot: number; decision: Decision } | null {
    if (this.closing || now >= this.expiresLocal || this.used.length >= this.slots) return null;
    if (this.tokens !== null && cost > 0 && this.spent + cost > this.tokens) return null;
    this.used.push({ localAt: now, tokens: cost, released: false });
    this.spent += cost;
    const n = this.used.length;
    const decision: Decision = {
      now: this.grantedAt + (now - this.grantedLocal),
      states: this.states.map((s, i) => ({
        count: s.count + n,
        used: s.used + this.spent,
        dayCount: this.rpdBuckets[i] ? s.dayCount + n : s.dayCount,
        oldestAt: s.oldestAt,
      })),
    };
    return { slot: n, decision };
  }

  get exhausted(): boolean {
    return this.used.length >= this.slots;
  }

  /** Corrects a slot's tokens while the lease is open (null releases it); false once it is closing. */
  settle(slot: number, tokens: number | null): boolean {
    if (this.closing) return false;
    const s = this.used[slot - 1];
    this.spent += (tokens ?? 0) - s.tokens;
    s.tokens = tokens ?? 0;
    s.released = tokens === null;
    return true;
  }

  /** Every slot as the close script takes it: used slots with their time on Redis's clock. */
  closedSlots(): ClosedSlot[] {
    const out: ClosedSlot[] = [];
    for (let i = 0; i < this.slots; i++) {
      const s = this.used[i];
      out.push(s && !s.released ? { at: this.grantedAt + (s.localAt - this.grantedLocal), tokens: s.tokens } : null);
    }
    return out;
  }
}
