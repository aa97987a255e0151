import { Inject, Injectable } from '@nestjs/common';
import { ApiKey } from '../generated/prisma/client';
import { KEYS_PRISMA, KeysPrisma } from '../database/keys-prisma';
import { ApiKeyPatch, ApiKeyRecord, CreateKeyResult, KeyUse, NewApiKey } from './api-key.record';
import { KeysRepository } from './keys.repository';

export function toRecord(row: ApiKey): ApiKeyRecord {
  return { ...row, limitUsd: row.limitUsd?.toString() ?? null, limitDiem: row.limitDiem?.toString() ?? null };
}

@Injectable()
export class PrismaKeysRepository extends KeysRepository {
  constructor(@Inject(KEYS_PRISMA) private readonly prisma: KeysPrisma) {
    super();
  }

  async findBySecretHash(secretHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.prisma.apiKey.findUnique({ where: { secretHash } });
    return row && toRecord(row);
  }

  async findById(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.prisma.apiKey.findUnique({ where: { id } });
    return row && toRecord(row);
  }

  async findActive(accountId: string, id: string): Promise<ApiKeyRecord | null> {
    const row = await this.prisma.apiKey.findFirst({ where: { id, accountId, deletedAt: null } });
    return row && toRecord(row);
  }

  async listActive(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.prisma.apiKey.findMany({ where: { accountId, deletedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toRecord);
  }

  create(key: NewApiKey, maxActive: number): Promise<CreateKeyResult> {
    return this.prisma.$transaction(async (tx) => {
      // Locking the account row serializes creates per account, so the limit holds under races.
      const account = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM accounts WHERE id = ${key.accountId}::uuid FOR UPDATE`;
      if (account.length === 0) return { status: 'account-not-found' };
      const active = await tx.apiKey.count({ where: { accountId: key.accountId, deletedAt: null } });
      if (active >= maxActive) return { status: 'limit-reached' };
      return { status: 'created', key: toRecord(await tx.apiKey.create({ data: key })) };
    });
  }

  async update(accountId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    const { count } = await this.prisma.apiKey.updateMany({ where: { id, accountId, deletedAt: null }, data: patch });
    return count ? this.findActive(accountId, id) : null;
  }

  async softDelete(accountId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({ where: { id, accountId, deletedAt: null }, data: { deletedAt: new Date() } });
    return count > 0;
  }

  async recordUses(uses: KeyUse[]): Promise<number> {
    if (uses.length === 0) return 0;
    const ids = uses.map((u) => u.id);
    const ats = uses.map((u) => u.at.toISOString());
    return this.prisma.$executeRaw`
      UPDATE api_keys AS k SET last_used_at = u.at
      FROM unnest(${ids}::uuid[], ${ats}::timestamptz[]) AS u(id, at)
      WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`;
  }
}
