import { ApiKeyPatch, ApiKeyRecord, CreateKeyResult, KeyUse, NewApiKey } from './api-key.record';

/** Storage of API keys. The Prisma implementation is PrismaKeysRepository; tests use a fake. */
export abstract class KeysRepository {
  /** By hash, soft-deleted keys included (the caller decides). */
  abstract findBySecretHash(secretHash: string): Promise<ApiKeyRecord | null>;
  /** Any account's key, soft-deleted included (operator tooling). */
  abstract findById(id: string): Promise<ApiKeyRecord | null>;
  abstract findActive(accountId: string, id: string): Promise<ApiKeyRecord | null>;
  abstract listActive(accountId: string): Promise<ApiKeyRecord[]>;
  /** Creates the key unless the account is missing or already has `maxActive` active keys. */
  abstract create(key: NewApiKey, maxActive: number): Promise<CreateKeyResult>;
  abstract update(accountId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;
  abstract softDelete(accountId: string, id: string): Promise<boolean>;
  /** Moves lastUsedAt forward only; returns how many keys changed. */
  abstract recordUses(uses: KeyUse[]): Promise<number>;
}
