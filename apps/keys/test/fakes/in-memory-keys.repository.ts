import { randomUUID } from 'node:crypto';
import { ApiKeyPatch, ApiKeyRecord, CreateKeyResult, KeyUse, NewApiKey } from '../../src/keys/api-key.record';
import { KeysRepository } from '../../src/keys/keys.repository';

const decimal = (value: number | null | undefined) => (value === null || value === undefined ? null : String(value));

/** KeysRepository in memory, for service unit tests. */
export class InMemoryKeysRepository extends KeysRepository {
  readonly rows = new Map<string, ApiKeyRecord>();
  readonly accounts = new Set<string>();

  async findBySecretHash(secretHash: string) {
    return [...this.rows.values()].find((k) => k.secretHash === secretHash) ?? null;
  }

  async findById(id: string) {
    return this.rows.get(id) ?? null;
  }

  async findActive(accountId: string, id: string) {
    const key = this.rows.get(id);
    return key && key.accountId === accountId && !key.deletedAt ? key : null;
  }

  async listActive(accountId: string) {
    return [...this.rows.values()].filter((k) => k.accountId === accountId && !k.deletedAt);
  }

  async create(key: NewApiKey, maxActive: number): Promise<CreateKeyResult> {
    if (!this.accounts.has(key.accountId)) return { status: 'account-not-found' };
    if ((await this.listActive(key.accountId)).length >= maxActive) return { status: 'limit-reached' };
    const record: ApiKeyRecord = {
      ...key,
      id: randomUUID(),
      limitUsd: decimal(key.limitUsd),
      limitDiem: decimal(key.limitDiem),
      createdAt: new Date(),
      lastUsedAt: null,
      deletedAt: null,
    };
    this.rows.set(record.id, record);
    return { status: 'created', key: record };
  }

  async update(accountId: string, id: string, patch: ApiKeyPatch) {
    const key = await this.findActive(accountId, id);
    if (!key) return null;
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as ApiKeyPatch;
    const next: ApiKeyRecord = {
      ...key,
      ...defined,
      limitUsd: patch.limitUsd === undefined ? key.limitUsd : decimal(patch.limitUsd),
      limitDiem: patch.limitDiem === undefined ? key.limitDiem : decimal(patch.limitDiem),
    } as ApiKeyRecord;
    this.rows.set(id, next);
    return next;
  }

  async softDelete(accountId: string, id: string) {
    const key = await this.findActive(accountId, id);
    if (!key) return false;
    this.rows.set(id, { ...key, deletedAt: new Date() });
    return true;
  }

  async recordUses(uses: KeyUse[]) {
    let changed = 0;
    for (const use of uses) {
      const key = this.rows.get(use.id);
      if (key && (!key.lastUsedAt || key.lastUsedAt < use.at)) {
        this.rows.set(use.id, { ...key, lastUsedAt: use.at });
        changed++;
      }
    }
    return changed;
  }
}
