import { ApiTier, KeyRateLimits, RateLimitOverride, RateLimitTarget } from '@svc/contracts';
import { AccountRateLimitsRecord, applyPatch, OverridePatch, RateLimitsRepository } from '../../src/rate-limits/rate-limits.repository';
import { InMemoryKeysRepository } from './in-memory-keys.repository';

/** RateLimitsRepository in memory, next to an InMemoryKeysRepository (accounts and keys live there). */
export class InMemoryRateLimitsRepository extends RateLimitsRepository {
  readonly tiers = new Map<string, ApiTier>();
  readonly accountOverrides = new Map<string, Map<string, RateLimitOverride>>();
  readonly keyOverrides = new Map<string, Map<string, RateLimitOverride>>();

  constructor(private readonly keys: InMemoryKeysRepository) {
    super();
  }

  async forKey(accountId: string, keyId: string): Promise<KeyRateLimits | null> {
    if (!this.keys.accounts.has(accountId)) return null;
    return { apiTier: this.tiers.get(accountId) ?? 'paid', account: list(this.accountOverrides.get(accountId)), key: list(this.keyOverrides.get(keyId)) };
  }

  async forAccount(accountId: string): Promise<AccountRateLimitsRecord | null> {
    if (!this.keys.accounts.has(accountId)) return null;
    const keys = (await this.keys.listActive(accountId))
      .map((k) => ({ keyId: k.id, overrides: list(this.keyOverrides.get(k.id)) }))
      .filter((k) => k.overrides.length > 0);
    return { accountId, apiTier: this.tiers.get(accountId) ?? 'paid', account: list(this.accountOverrides.get(accountId)), keys };
  }

  async setTier(accountId: string, tier: ApiTier): Promise<boolean> {
    if (!this.keys.accounts.has(accountId)) return false;
    this.tiers.set(accountId, tier);
    return true;
  }

  async patchAccount(accountId: string, target: RateLimitTarget, patch: OverridePatch) {
    return this.keys.accounts.has(accountId) ? patchIn(this.accountOverrides, accountId, target, patch) : undefined;
  }

  async patchKey(keyId: string, target: RateLimitTarget, patch: OverridePatch) {
    const key = this.keys.rows.get(keyId);
    return key && !key.deletedAt ? patchIn(this.keyOverrides, keyId, target, patch) : undefined;
  }

  async clearAccount(accountId: string, target?: RateLimitTarget) {
    return clearIn(this.accountOverrides, accountId, target);
  }

  async clearKey(keyId: string, target?: RateLimitTarget) {
    return clearIn(this.keyOverrides, keyId, target);
  }
}

const list = (map: Map<string, RateLimitOverride> | undefined) => [...(map?.values() ?? [])].sort((a, b) => a.target.localeCompare(b.target));

function patchIn(store: Map<string, Map<string, RateLimitOverride>>, id: string, target: RateLimitTarget, patch: OverridePatch): RateLimitOverride | null {
  const map = store.get(id) ?? new Map<string, RateLimitOverride>();
  store.set(id, map);
  const next = applyPatch(target, map.get(target) ?? null, patch);
  if (next) map.set(target, next);
  else map.delete(target);
  return next;
}

function clearIn(store: Map<string, Map<string, RateLimitOverride>>, id: string, target?: RateLimitTarget): number {
  const map = store.get(id);
  if (!map) return 0;
  if (target === undefined) {
    const n = map.size;
    map.clear();
    return n;
  }
  return map.delete(target) ? 1 : 0;
}
