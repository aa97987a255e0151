import { ApiTier, KeyRateLimits, RateLimitOverride, RateLimitTarget } from '@svc/contracts';

/** Fields of an override to change: undefined keeps a field, null clears it (inherit again). */
export interface OverridePatch {
  rpm?: number | null;
  tpm?: number | null;
  rpd?: number | null;
}

export interface AccountRateLimitsRecord {
  accountId: string;
  apiTier: ApiTier;
  account: RateLimitOverride[];
  /** Active keys that carry their own limits. */
  keys: Array<{ keyId: string; overrides: RateLimitOverride[] }>;
}

/** Tier and overrides in svc_keys. The Prisma implementation is PrismaRateLimitsRepository. */
export abstract class RateLimitsRepository {
  /** What VERIFY attaches to a key: one round trip. Null when the account does not exist. */
  abstract forKey(accountId: string, keyId: string): Promise<KeyRateLimits | null>;
  abstract forAccount(accountId: string): Promise<AccountRateLimitsRecord | null>;
  /** False when the account does not exist. */
  abstract setTier(accountId: string, tier: ApiTier): Promise<boolean>;
  /** The override after the change (null when every field is now cleared and the row is gone); undefined when the account does not exist. */
  abstract patchAccount(accountId: string, target: RateLimitTarget, patch: OverridePatch): Promise<RateLimitOverride | null | undefined>;
  abstract patchKey(keyId: string, target: RateLimitTarget, patch: OverridePatch): Promise<RateLimitOverride | null | undefined>;
  /** Removes one target's override, or all of them; returns how many were removed. */
  abstract clearAccount(accountId: string, target?: RateLimitTarget): Promise<number>;
  abstract clearKey(keyId: string, target?: RateLimitTarget): Promise<number>;
}

/** Applies a patch to an existing override (or none); null when no field is left. */
export function applyPatch(target: RateLimitTarget, before: RateLimitOverride | null, patch: OverridePatch): RateLimitOverride | null {
  const pick = (field: keyof OverridePatch) => (patch[field] === undefined ? (before?.[field] ?? null) : patch[field]);
  const next: RateLimitOverride = { target, rpm: pick('rpm'), tpm: pick('tpm'), rpd: pick('rpd') };
  return next.rpm === null && next.tpm === null && next.rpd === null ? null : next;
}
