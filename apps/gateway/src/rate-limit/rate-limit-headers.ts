import { HEADER } from '@svc/headers';
import { Bucket } from './limit-plan';
import { BucketState, Decision } from './limiter.types';

const DAY_MS = 86_400_000;

const remainingRequests = (b: Bucket, s: BucketState) =>
  Math.min(Math.max(0, (b.limits.rpm ?? Infinity) - s.count), b.limits.rpd === null ? Infinity : Math.max(0, b.limits.rpd - s.dayCount));
const requestRatio = (b: Bucket, s: BucketState) => remainingRequests(b, s) / Math.min(b.limits.rpm ?? Infinity, b.limits.rpd ?? Infinity);
const tokenRatio = (b: Bucket, s: BucketState) => Math.max(0, (b.limits.tpm as number) - s.used) / (b.limits.tpm as number);

/** The bucket that binds first (lowest share left); ties go to the more specific one. */
function tightest(
  buckets: readonly Bucket[],
  states: readonly BucketState[],
  applies: (b: Bucket) => boolean,
  ratio: (b: Bucket, s: BucketState) => number,
): number {
  let best = -1;
  let bestRatio = Infinity;
  buckets.forEach((b, i) => {
    if (!applies(b)) return;
    const r = ratio(b, states[i]);
    if (best < 0 || r < bestRatio) {
      best = i;
      bestRatio = r;
    }
  });
  return best;
}

/**
 * The spec's x-ratelimit-* headers for one decision. Requests and tokens each show the bucket
 * that binds first (on a refusal: the refusing bucket), and x-ratelimit-type names whose limit
 * the request headers describe. Resets: for a refusal, when a retry of the same request can
 * succeed; otherwise when the oldest counted request leaves the window (remaining goes up next).
 */
export function rateLimitHeaders(buckets: readonly Bucket[], decision: Decision, windowMs: number): Record<string, string> {
  const { now, states, denial } = decision;
  const headers: Record<string, string> = {};

  const byRequests = (b: Bucket) => b.limits.rpm !== null || b.limits.rpd !== null;
  const r = denial && (denial.kind === 'RPM' || denial.kind === 'RPD') ? denial.bucket : tightest(buckets, states, byRequests, requestRatio);
  if (r >= 0) {
    const b = buckets[r];
    const s = states[r];
    const rpmLeft = b.limits.rpm === null ? Infinity : Math.max(0, b.limits.rpm - s.count);
    const rpdLeft = b.limits.rpd === null ? Infinity : Math.max(0, b.limits.rpd - s.dayCount);
    let resetAt: number;
    if (denial && denial.bucket === r && denial.retryAt !== null && denial.kind !== 'TPM') resetAt = denial.retryAt;
    else if (rpdLeft < rpmLeft) resetAt = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    else resetAt = s.oldestAt === null ? now : s.oldestAt + windowMs;
    headers[HEADER.rateLimitLimitRequests] = String(b.limits.rpm ?? b.limits.rpd);
    headers[HEADER.rateLimitRemainingRequests] = String(Math.min(rpmLeft, rpdLeft));
    headers[HEADER.rateLimitResetRequests] = String(Math.ceil(resetAt / 1000));
    headers[HEADER.rateLimitType] = buckets[denial ? denial.bucket : r].scope;
  }

  const t =
    denial && (denial.kind === 'TPM' || denial.kind === 'TOO_LARGE') ? denial.bucket : tightest(buckets, states, (b) => b.limits.tpm !== null, tokenRatio);
  if (t >= 0 && buckets[t].limits.tpm !== null) {
    const tpm = buckets[t].limits.tpm as number;
    const s = states[t];
    let resetMs: number;
    if (denial && denial.bucket === t && denial.kind === 'TPM' && denial.retryAt !== null) resetMs = denial.retryAt - now;
    else if (denial && denial.bucket === t && denial.kind === 'TOO_LARGE') resetMs = windowMs;
    else resetMs = s.used > 0 && s.oldestAt !== null ? s.oldestAt + windowMs - now : 0;
    headers[HEADER.rateLimitLimitTokens] = String(tpm);
    headers[HEADER.rateLimitRemainingTokens] = String(Math.max(0, tpm - s.used));
    headers[HEADER.rateLimitResetTokens] = String(Math.max(0, Math.ceil(resetMs / 1000)));
  }
  return headers;
}
