import { assertUnreachable } from '@svc/errors';
import { BucketScope, LimitPlan } from './limit-plan';
import { Denial } from './limiter.types';

const WHOSE: Record<BucketScope, string> = { api_key: 'for this API key', user: 'for your account', global: 'for all callers of this model' };

function retryIn(retryAt: number | null, now: number): string {
  if (retryAt === null) return '';
  const seconds = Math.max(1, Math.ceil((retryAt - now) / 1000));
  return ` Retry in ${seconds} s (x-ratelimit-reset-requests has the time).`;
}

/** The 429 message of a refusal: which limit, whose, and when to retry. Never echoes request content. */
export function denialMessage(plan: LimitPlan, denial: Denial, now: number, cost: number): string {
  const bucket = plan.buckets[denial.bucket];
  const whose = WHOSE[bucket.scope];
  const model = plan.modelId;
  switch (denial.kind) {
    case 'RPM':
      return `Rate limit reached: ${bucket.limits.rpm} requests per minute on model ${model} ${whose}.${retryIn(denial.retryAt, now)}`;
    case 'RPD':
      return `Rate limit reached: ${bucket.limits.rpd} requests per day on model ${model} ${whose}; it resets at 00:00 UTC.`;
    case 'TPM':
      return `Rate limit reached: ${bucket.limits.tpm} tokens per minute on model ${model} ${whose} (a request counts its prompt plus max_tokens until it completes).${retryIn(denial.retryAt, now)}`;
    case 'TOO_LARGE':
      return `Request too large for model ${model}: it may use ${cost} tokens (prompt plus max_tokens) but the limit is ${bucket.limits.tpm} tokens per minute ${whose}. Lower max_tokens or shorten the prompt.`;
    default:
      return assertUnreachable(denial.kind);
  }
}
