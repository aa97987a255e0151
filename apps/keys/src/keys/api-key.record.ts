import { ApiKeyType, LimitPeriod, ModelPrivacy } from '@svc/contracts';

/** An api_keys row as the service sees it; limits are decimal strings to keep precision. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  type: ApiKeyType;
  description: string;
  secretHash: string;
  last6: string;
  expiresAt: Date | null;
  limitUsd: string | null;
  limitDiem: string | null;
  limitPeriod: LimitPeriod;
  modelPrivacy: ModelPrivacy;
  createdAt: Date;
  lastUsedAt: Date | null;
  deletedAt: Date | null;
}

/** Limits as callers give them (numbers); the row keeps them as decimal strings. */
interface KeyLimits {
  limitUsd: number | null;
  limitDiem: number | null;
}

/** A key to insert: the row without what the database assigns (id, timestamps), limits as numbers. */
export type NewApiKey = Omit<ApiKeyRecord, 'id' | 'createdAt' | 'lastUsedAt' | 'deletedAt' | keyof KeyLimits> & KeyLimits;

/** Fields an owner may change; undefined leaves a field as it is, null clears it. */
export type ApiKeyPatch = Partial<Pick<NewApiKey, 'description' | 'expiresAt' | keyof KeyLimits | 'limitPeriod' | 'modelPrivacy'>>;

export interface KeyUse {
  id: string;
  at: Date;
}

export type CreateKeyResult = { status: 'created'; key: ApiKeyRecord } | { status: 'account-not-found' } | { status: 'limit-reached' };
