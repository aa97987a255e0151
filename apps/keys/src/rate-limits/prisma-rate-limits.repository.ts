import { Inject, Injectable } from '@nestjs/common';
import { ApiTier, KeyRateLimits, RateLimitOverride, RateLimitTarget } from '@svc/contracts';
import { KEYS_PRISMA, KeysPrisma } from '../database/keys-prisma';
import { ApiTier as DbApiTier } from '../generated/prisma/client';
import { AccountRateLimitsRecord, applyPatch, OverridePatch, RateLimitsRepository } from './rate-limits.repository';

const toTier = (tier: DbApiTier | string): ApiTier => (tier === 'PARTNER' ? 'partner' : 'paid');
const toDbTier = (tier: ApiTier): DbApiTier => (tier === 'partner' ? 'PARTNER' : 'PAID');

interface OverrideRow {
  target: string;
  rpm: number | null;
  tpm: number | null;
  rpd: number | null;
}
const toOverride = (row: OverrideRow): RateLimitOverride => ({ target: row.target as RateLimitTarget, rpm: row.rpm, tpm: row.tpm, rpd: row.rpd });
const byTarget = (a: OverrideRow, b: OverrideRow) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);

@Injectable()
export class PrismaRateLimitsRepository extends RateLimitsRepository {
  constructor(@Inject(KEYS_PRISMA) private readonly prisma: KeysPrisma) {
    super();
  }

  async forKey(accountId: string, keyId: string): Promise<KeyRateLimits | null> {
    const rows = await this.prisma.$queryRaw<Array<{ tier: string; account: OverrideRow[]; key: OverrideRow[] }>>`
      SELECT a.api_tier::text AS tier,
        COALESCE((SELECT json_agg(json_build_object('target', r.target, 'rpm', r.rpm, 'tpm', r.tpm, 'rpd', r.rpd) ORDER BY r.target)
                  FROM account_rate_limits r WHERE r.account_id = a.id), '[]'::json) AS account,
        COALESCE((SELECT json_agg(json_build_object('target', r.target, 'rpm', r.rpm, 'tpm', r.tpm, 'rpd', r.rpd) ORDER BY r.target)
                  FROM api_key_rate_limits r WHERE r.api_key_id = ${keyId}::uuid), '[]'::json) AS key
      FROM accounts a WHERE a.id = ${accountId}::uuid`;
    const row = rows[0];
    return row ? { apiTier: toTier(row.tier), account: row.account.map(toOverride), key: row.key.map(toOverride) } : null;
  }

  async forAccount(accountId: string): Promise<AccountRateLimitsRecord | null> {
    const account = await this.prisma.account.findUnique({
      where: { id: accountId },
      select: {
        apiTier: true,
        rateLimits: true,
        apiKeys: { where: { deletedAt: null, rateLimits: { some: {} } }, select: { id: true, rateLimits: true }, orderBy: { createdAt: 'asc' } },
      },
    });
    if (!account) return null;
    return {
      accountId,
      apiTier: toTier(account.apiTier),
      account: account.rateLimits.sort(byTarget).map(toOverride),
      keys: account.apiKeys.map((k) => ({ keyId: k.id, overrides: k.rateLimits.sort(byTarget).map(toOverride) })),
    };
  }

  async setTier(accountId: string, tier: ApiTier): Promise<boolean> {
    const { count } = await this.prisma.account.updateMany({ where: { id: accountId }, data: { apiTier: toDbTier(tier) } });
    return count > 0;
  }

  patchAccount(accountId: string, target: RateLimitTarget, patch: OverridePatch): Promise<RateLimitOverride | null | undefined> {
    return this.prisma.$transaction(async (tx) => {
      // Locking the account row serializes concurrent patches of its overrides.
      const account = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
      if (account.length === 0) return undefined;
      const where = { accountId_target: { accountId, target } };
      const before = await tx.accountRateLimit.findUnique({ where });
      const next = applyPatch(target, before && toOverride(before), patch);
      if (!next) {
        if (before) await tx.accountRateLimit.delete({ where });
        return null;
      }
      const { rpm, tpm, rpd } = next;
      await tx.accountRateLimit.upsert({ where, create: { accountId, target, rpm, tpm, rpd }, update: { rpm, tpm, rpd } });
      return next;
    });
  }

  patchKey(keyId: string, target: RateLimitTarget, patch: OverridePatch): Promise<RateLimitOverride | null | undefined> {
    return this.prisma.$transaction(async (tx) => {
      const key = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM api_keys WHERE id = ${keyId}::uuid AND deleted_at IS NULL FOR UPDATE`;
      if (key.length === 0) return undefined;
      const where = { apiKeyId_target: { apiKeyId: keyId, target } };
      const before = await tx.apiKeyRateLimit.findUnique({ where });
      const next = applyPatch(target, before && toOverride(before), patch);
      if (!next) {
        if (before) await tx.apiKeyRateLimit.delete({ where });
        return null;
      }
      const { rpm, tpm, rpd } = next;
      await tx.apiKeyRateLimit.upsert({ where, create: { apiKeyId: keyId, target, rpm, tpm, rpd }, update: { rpm, tpm, rpd } });
      return next;
    });
  }

  async clearAccount(accountId: string, target?: RateLimitTarget): Promise<number> {
    const { count } = await this.prisma.accountRateLimit.deleteMany({ where: { accountId, ...(target ? { target } : {}) } });
    return count;
  }

  async clearKey(keyId: string, target?: RateLimitTarget): Promise<number> {
    const { count } = await this.prisma.apiKeyRateLimit.deleteMany({ where: { apiKeyId: keyId, ...(target ? { target } : {}) } });
    return count;
  }
}
