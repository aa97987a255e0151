/** The public API's shapes the console reads (docs/console.md lists the routes). */
export type LimitPeriod = 'EPOCH' | 'MONTH' | 'LIFETIME';

export interface ApiKey {
  id: string;
  apiKeyType: 'ADMIN' | 'INFERENCE';
  description: string;
  consumptionLimits: { usd: number | null; diem: number | null };
  limitPeriod: LimitPeriod;
  createdAt: string | null;
  expiresAt: string | null;
  last6Chars: string;
  lastUsedAt: string | null;
  usage?: { trailingSevenDays: { usd: string; diem: string } };
  currentPeriodUsage?: { usd: string; diem: string };
}

export interface CreatedKey {
  id: string;
  apiKey: string;
  description: string;
}

export interface Balance {
  canConsume: boolean;
  consumptionCurrency: string;
  balances: { usd: number; diem: number | null };
  diemEpochAllocation: number;
}

export interface UsageEntry {
  amount: number;
  currency: 'USD' | 'DIEM';
  inferenceDetails: { completionTokens: number | null; promptTokens: number | null; requestId: string } | null;
  notes: string;
  pricePerUnitUsd: number;
  sku: string;
  timestamp: string;
  units: number;
}

export interface UsageAnalytics {
  lookback: string;
  byDate: Array<{ date: string; USD: number; DIEM: number }>;
  byModel: Array<{ modelName: string; totalUsd: number; totalDiem: number; totalUnits: number }>;
  byModelDaily: Array<Record<string, number | string>>;
  topModels: string[];
  byKey: Array<{ apiKeyId: string | null; description: string; totalUsd: number; totalDiem: number }>;
  byKeyDaily: Array<Record<string, number | string>>;
  topKeyNames: string[];
}

export interface Price {
  usd: number;
  diem: number;
}

export interface ModelPricing {
  input?: Price;
  output?: Price;
  generation?: Price;
  per_request?: Price;
  per_audio_second?: Price;
  per_thousand_characters?: Price;
  [other: string]: unknown;
}

export interface Model {
  id: string;
  type: string;
  context_length?: number;
  model_spec: {
    name: string;
    description?: string;
    privacy?: string;
    modelSource?: string;
    pricing: ModelPricing;
    traits?: string[];
    availableContextTokens?: number;
    maxCompletionTokens?: number;
    capabilities?: Record<string, unknown>;
    deprecation?: { date: string; replacementModelId?: string };
  };
}

export interface Character {
  slug: string;
  name: string;
  description: string | null;
  systemPrompt?: string;
  modelId: string;
  tags: string[];
  categories?: string[];
  adult?: boolean;
  webEnabled?: boolean;
}

export interface RateLimits {
  apiTier: { id: string };
  keyExpiration: string | null;
  nextEpochBegins: string;
  balances: Record<string, number>;
  rateLimits: Array<{ apiModelId: string; rateLimits: Array<{ amount: number; type: 'RPM' | 'RPD' | 'TPM' }> }>;
}

export interface RateLimitHit {
  apiKeyId: string;
  modelId: string;
  rateLimitTier: string;
  rateLimitType: string;
  timestamp: string;
}
