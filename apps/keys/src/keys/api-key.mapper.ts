import { ApiKeyView, AuthenticatedKey, ConsumptionLimits } from '@svc/contracts';
import { ApiKeyRecord } from './api-key.record';

const limitOf = (value: string | null): number | null => (value === null ? null : Number(value));
const isoOf = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function consumptionLimitsOf(key: ApiKeyRecord): ConsumptionLimits {
  return { usd: limitOf(key.limitUsd), diem: limitOf(key.limitDiem) };
}

/** What the owner sees: never the secret or its hash. */
export function toApiKeyView(key: ApiKeyRecord): ApiKeyView {
  return {
    id: key.id,
    apiKeyType: key.type,
    description: key.description,
    consumptionLimits: consumptionLimitsOf(key),
    limitPeriod: key.limitPeriod,
    modelPrivacy: key.modelPrivacy,
    createdAt: isoOf(key.createdAt),
    expiresAt: isoOf(key.expiresAt),
    last6Chars: key.last6,
    lastUsedAt: isoOf(key.lastUsedAt),
  };
}

export function toAuthenticatedKey(key: ApiKeyRecord): AuthenticatedKey {
  return {
    id: key.id,
    accountId: key.accountId,
    apiKeyType: key.type,
    expiresAt: isoOf(key.expiresAt),
    consumptionLimits: consumptionLimitsOf(key),
    limitPeriod: key.limitPeriod,
    modelPrivacy: key.modelPrivacy,
  };
}
