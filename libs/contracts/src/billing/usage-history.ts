import { BillingCurrency } from './money';

export interface UsageHistoryRequest {
  accountId: string;
  /** A continuation token; carries the filters, so none may be sent with it. */
  cursor?: string;
  currency?: BillingCurrency;
  /** Inclusive, ISO 8601. */
  startTimestamp?: string;
  /** Exclusive, ISO 8601; defaults to the time of the first page, so a walk is stable. */
  endTimestamp?: string;
  /** 10 to 1000, default 1000. */
  pageSize?: number;
}

/** One priced line of a request, in the public API's shape. */
export interface UsageHistoryEntry {
  /** Negative: a charge. */
  amount: number;
  currency: BillingCurrency;
  inferenceDetails: { completionTokens: number | null; inferenceExecutionTime: number | null; promptTokens: number | null; requestId: string } | null;
  notes: string;
  pricePerUnitUsd: number;
  sku: string;
  timestamp: string;
  units: number;
}

export interface UsageHistoryReply {
  data: UsageHistoryEntry[];
  nextCursor: string | null;
  /** 1-based page number of this walk. */
  page: number;
  pageSize: number;
  /**
   * Entries in the whole walk, counted when it starts (its end is fixed then); null when there
   * are more than the count's bound (docs/billing.md). Absent from older services: no totals.
   */
  total?: number | null;
}

export interface UsageAnalyticsRequest {
  accountId: string;
  /** Days back from now (1 to 90), unless startDate/endDate are given. */
  lookbackDays?: number;
  /** YYYY-MM-DD, inclusive, UTC; both or neither. */
  startDate?: string;
  endDate?: string;
}

export interface AnalyticsBreakdown {
  type: string;
  usd: number;
  diem: number;
  units: number;
}

export interface UsageAnalyticsReply {
  lookback: string;
  byDate: Array<{ date: string; USD: number; DIEM: number }>;
  byModel: Array<{
    modelName: string;
    unitType: string;
    modelType: string | null;
    totalUsd: number;
    totalDiem: number;
    totalUnits: number;
    breakdown?: AnalyticsBreakdown[];
  }>;
  byModelDaily: Array<Record<string, number>>;
  topModels: string[];
  /** Keyed by API key id; the gateway adds descriptions. */
  byKey: Array<{ apiKeyId: string | null; totalUsd: number; totalDiem: number; totalUnits: number }>;
  byKeyDaily: Array<Record<string, number>>;
  topKeyIds: string[];
}
