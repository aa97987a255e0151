import { ApiTier, AuthenticatedKey, MODEL_TARGET_PREFIX, RateLimitClass, RateLimitOverride } from '@svc/contracts';
import { DEFAULT_LIMITS } from './default-limits';
import { LimitedModel, limitClassOf } from './limit-class';

/** The spec's `x-ratelimit-type` values: whose counter a limit is. */
export type BucketScope = 'api_key' | 'user' | 'global';

export interface BucketLimits {
  rpm: number | null;
  tpm: number | null;
  rpd: number | null;
}

/** One counter a request is checked against and counted in: per model, for a key, an account or everyone. */
export interface Bucket {
  scope: BucketScope;
  /** Unique name of the counter (Redis key part): scope, owner and model. */
  id: string;
  limits: BucketLimits;
}

export interface LimitPlan {
  modelId: string;
  limitClass: RateLimitClass;
  apiTier: ApiTier;
  /** Most specific first: the key's own limits (when it has any), the account's, the global ones (when configured). */
  buckets: Bucket[];
}

/** Platform-wide limits per model id, or `*` for every model (RATE_LIMIT_GLOBAL_JSON). */
export type GlobalLimits = Record<string, Partial<BucketLimits>>;

const NONE: BucketLimits = { rpm: null, tpm: null, rpd: null };

/** Applies overrides from least to most specific (`*`, class, model); each non-null field replaces. */
function overlay(base: BucketLimits, overrides: readonly RateLimitOverride[], limitClass: RateLimitClass, modelId: string): BucketLimits {
  const order = ['*', limitClass, `${MODEL_TARGET_PREFIX}${modelId}`];
  let out = base;
  for (const target of order) {
    const o = overrides.find((x) => x.target === target);
    if (o) out = { rpm: o.rpm ?? out.rpm, tpm: o.tpm ?? out.tpm, rpd: o.rpd ?? out.rpd };
  }
  return out;
}

const hasAny = (l: BucketLimits) => l.rpm !== null || l.tpm !== null || l.rpd !== null;

/** The account's limits for a model: its tier's defaults, then the operator's account overrides. */
export function accountLimits(key: Pick<AuthenticatedKey, 'rateLimits'>, model: LimitedModel): BucketLimits {
  const limitClass = limitClassOf(model);
  const defaults = DEFAULT_LIMITS[key.rateLimits?.apiTier ?? 'paid'][limitClass];
  return overlay({ rpm: defaults.rpm, tpm: defaults.tpm, rpd: null }, key.rateLimits?.account ?? [], limitClass, model.id);
}

/** Every counter a request of this key to this model is checked against. */
export function limitPlan(key: Pick<AuthenticatedKey, 'id' | 'accountId' | 'rateLimits'>, model: LimitedModel, global?: GlobalLimits): LimitPlan {
  const limitClass = limitClassOf(model);
  const buckets: Bucket[] = [];
  // A limit override counts apart from the model's own requests (video-retrieve next to video-queue).
  const counter = model.limitClass ? `${model.id}#${model.limitClass}` : model.id;
  const own = overlay(NONE, key.rateLimits?.key ?? [], limitClass, model.id);
  if (hasAny(own)) buckets.push({ scope: 'api_key', id: `k:${key.id}:${counter}`, limits: own });
  buckets.push({ scope: 'user', id: `u:${key.accountId}:${counter}`, limits: accountLimits(key, model) });
  if (global) {
    const g = { ...NONE, ...global['*'], ...global[model.id] };
    if (hasAny(g)) buckets.push({ scope: 'global', id: `g:${model.id}`, limits: g });
  }
  return { modelId: model.id, limitClass, apiTier: key.rateLimits?.apiTier ?? 'paid', buckets };
}

/** What a caller can use at most: per field, the lowest limit of any counter that applies. */
export function effectiveLimits(plan: LimitPlan): BucketLimits {
  const min = (field: keyof BucketLimits) => {
    const values = plan.buckets.map((b) => b.limits[field]).filter((v): v is number => v !== null);
    return values.length ? Math.min(...values) : null;
  };
  return { rpm: min('rpm'), tpm: min('tpm'), rpd: min('rpd') };
}
