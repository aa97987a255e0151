import { RateLimitType } from '@svc/contracts';
import { Bucket } from './limit-plan';

/** A counter's state right after a decision (the admitted request included). */
export interface BucketState {
  /** Requests in the sliding window. */
  count: number;
  /** Tokens in the sliding window (reservations, corrected to actual usage on settlement). */
  used: number;
  /** Requests this UTC day (only counted where an RPD limit applies). */
  dayCount: number;
  /** Time (ms, the limiter's clock) of the oldest request still in the window. */
  oldestAt: number | null;
}

export type DenialKind = 'RPM' | 'RPD' | 'TPM' | 'TOO_LARGE';

export interface Denial {
  /** Index into the plan's buckets. */
  bucket: number;
  kind: DenialKind;
  /** When a retry of the same request can succeed (ms, the limiter's clock); null for TOO_LARGE. */
  retryAt: number | null;
}

export interface Decision {
  /** The limiter's clock (Redis server time, or this process's clock in the local fallback). */
  now: number;
  states: BucketState[];
  denial?: Denial;
  /**
   * Set when the admission call also read a caller's abuse block key (`blockKey`): its lift time
   * (ms), or null when there is none. When it is a number, nothing was counted and `states` is empty.
   */
  blockedUntil?: number | null;
}

/** What the rate-limit log records about a refused request. */
export interface HitInfo {
  accountId: string;
  apiKeyId: string;
  modelId: string;
  apiTier: string;
}

export const typeOfDenial = (kind: DenialKind): RateLimitType => (kind === 'TOO_LARGE' ? 'TPM' : kind);

/**
 * Sliding-window counters. `admit` checks every bucket and, only when all allow it, counts the
 * request (and `cost` tokens) in all of them, atomically. `settle` corrects the tokens to actual
 * usage, or with null releases the request entirely (nothing was produced).
 */
export interface LimiterBackend {
  admit(buckets: readonly Bucket[], member: string, cost: number, hit: HitInfo, blockKey?: string): Promise<Decision>;
  settle(buckets: readonly Bucket[], member: string, tokens: number | null): Promise<void>;
  peek(buckets: readonly Bucket[]): Promise<Decision>;
}
