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

export interface NewApiKey {
  accountId: string;
  type: ApiKeyType;
  description: string;
  secretHash: string;
  last6: string;
  expiresAt: Date | null;
  limitUsd: number | null;
  limitDiem: number | null;
  limitPeriod: LimitPeriod;
  modelPrivacy: ModelPrivacy;
}

/** Fields an owner may change; undefined leaves a field as it is, null clears it. */
export interface ApiKeyPatch {
  description?: string;
  expiresAt?: Date | null;
  limitUsd?: number | null;
  limitDiem?: number | null;
  limitPeriod?: LimitPeriod;
  modelPrivacy?: ModelPrivacy;
}

export interface KeyUse {
  id: string;
  at: Date;
}

export type CreateKeyResult = { status: 'created'; key: ApiKeyRecord } | { status: 'account-not-found' } | { status: 'limit-reached' };
