import { KeyRateLimits } from './rate-limits';

export const API_KEY_TYPES = ['INFERENCE', 'ADMIN'] as const;
export type ApiKeyType = (typeof API_KEY_TYPES)[number];

export const LIMIT_PERIODS = ['EPOCH', 'MONTH', 'LIFETIME'] as const;
export type LimitPeriod = (typeof LIMIT_PERIODS)[number];

export const MODEL_PRIVACY = ['ALL', 'PRIVATE_TEXT', 'PRIVATE_ONLY'] as const;
export type ModelPrivacy = (typeof MODEL_PRIVACY)[number];

/** Consumption limits per currency; null means unlimited. Enforced by billing. */
export interface ConsumptionLimits {
  usd: number | null;
  diem: number | null;
}

/** An API key as shown to its owner (never the secret). Field names follow the public API. */
export interface ApiKeyView {
  id: string;
  apiKeyType: ApiKeyType;
  description: string;
  consumptionLimits: ConsumptionLimits;
  limitPeriod: LimitPeriod;
  modelPrivacy: ModelPrivacy;
  createdAt: string | null;
  expiresAt: string | null;
  last6Chars: string;
  lastUsedAt: string | null;
}

/** What the gateway needs to authorize a request. Cached by the gateway for a few seconds. */
export interface AuthenticatedKey {
  id: string;
  accountId: string;
  apiKeyType: ApiKeyType;
  expiresAt: string | null;
  consumptionLimits: ConsumptionLimits;
  limitPeriod: LimitPeriod;
  modelPrivacy: ModelPrivacy;
  /** The account's tier and operator overrides; absent means the `paid` tier's defaults. */
  rateLimits?: KeyRateLimits;
  /** Set when the caller signed in with a wallet (SIGN-IN-WITH-X) instead of a key: the key is the wallet's. */
  wallet?: { address: string; network: 'evm' | 'solana' };
}
