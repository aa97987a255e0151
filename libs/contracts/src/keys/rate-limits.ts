/** An account's API tier: which default rate limits apply (the public API's `apiTier.id`). */
export const API_TIERS = ['paid', 'partner'] as const;
export type ApiTier = (typeof API_TIERS)[number];

/**
 * The groups of models that share default limits: text models by their catalog tier, then the
 * other model types. `video-retrieve` is the limit of polling a queued video, not of a model run.
 * `augment` is the `/augment/*` tools (web search, scrape, text parser), `crypto-rpc` the
 * blockchain JSON-RPC proxy (`/crypto/rpc/{network}`).
 */
export const RATE_LIMIT_CLASSES = [
  'text:XS',
  'text:S',
  'text:M',
  'text:L',
  'image',
  'audio',
  'embedding',
  'video-queue',
  'video-retrieve',
  'augment',
  'crypto-rpc',
] as const;
export type RateLimitClass = (typeof RATE_LIMIT_CLASSES)[number];

/** What an override applies to: every model (`*`), a class, or one model (`model:<id>`). Most specific wins per field. */
export type RateLimitTarget = '*' | RateLimitClass | `model:${string}`;

export const MODEL_TARGET_PREFIX = 'model:';

/** One operator override; a null field keeps the value from the less specific level. */
export interface RateLimitOverride {
  target: RateLimitTarget;
  /** Requests per minute. */
  rpm: number | null;
  /** Tokens (prompt plus completion) per minute. */
  tpm: number | null;
  /** Requests per UTC day. */
  rpd: number | null;
}

/** Rate-limit settings that travel with an authenticated key, so admission needs no extra hop. */
export interface KeyRateLimits {
  apiTier: ApiTier;
  /** Replace the tier's defaults for the whole account (every key). */
  account: RateLimitOverride[];
  /** The key's own limits, checked in addition to the account's (so they can only lower them). */
  key: RateLimitOverride[];
}

/** Limit types of `GET /api_keys/rate_limits` and of the rate-limit log. */
export const RATE_LIMIT_TYPES = ['RPM', 'RPD', 'TPM', 'FAILED_REQUESTS'] as const;
export type RateLimitType = (typeof RATE_LIMIT_TYPES)[number];

const CLASS_SET: ReadonlySet<string> = new Set(RATE_LIMIT_CLASSES);
const MODEL_ID = /^[a-z0-9][a-z0-9._-]*$/;

export function isRateLimitTarget(value: string): value is RateLimitTarget {
  if (value === '*' || CLASS_SET.has(value)) return true;
  return value.startsWith(MODEL_TARGET_PREFIX) && MODEL_ID.test(value.slice(MODEL_TARGET_PREFIX.length));
}
