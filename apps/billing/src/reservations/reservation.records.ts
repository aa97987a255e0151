import { BilledModel, BillableUsage, BillingCurrency, ConsumptionOrder, LimitPeriod, SettleStatus, SettledUsage } from '@svc/contracts';

export interface ReserveParams {
  id: string;
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
  cost: { usd: bigint; diem: bigint };
  limits: { usd: bigint | null; diem: bigint | null; period: LimitPeriod };
  model: BilledModel;
  /** model_spec.pricing as JSON text (the snapshot settlement prices with). */
  pricingJson: string;
  worstCase: BillableUsage;
  ttlMs: number;
  /** Wait for the WAL flush before answering (BILLING_DURABLE_HOLDS). */
  durable: boolean;
}

export type ReserveOutcome = 'reserved' | 'replay' | 'insufficient' | 'key-limit';

export interface ReserveResult {
  outcome: ReserveOutcome;
  currency: BillingCurrency | null;
  held: bigint;
  /** Before this request. */
  available: { usd: bigint; diem: bigint };
  /** Used plus held in the key's current window (refusals only). */
  keyUsed: { usd: bigint; diem: bigint };
  order: ConsumptionOrder;
  diemStake: bigint;
}

/** What settling needs to know about a reservation. */
export interface OpenReservation {
  id: string;
  status: 'HELD' | 'SETTLED' | 'RELEASED';
  currency: BillingCurrency;
  chargedNano: bigint;
  modelId: string;
  pricing: unknown;
  worstCase: BillableUsage;
  fallback: GatewayFallback | null;
}

/** The gateway's count of a cut or broken stream, kept until the service settles or the sweeper applies it. */
export interface GatewayFallback {
  usage: SettledUsage;
  outcome: 'cut' | 'failed';
  executionMs?: number;
}

/** A priced line as billing_settle stores it (amounts in the reservation's currency). */
export interface UsageLine {
  type: string;
  sku: string;
  unitType: string;
  quantity: number;
  perSkuUnit: number;
  /** Nano-USD per priced unit, for the history's pricePerUnitUsd. */
  unitPriceUsd: string;
  amount: string;
}

export interface SettleParams {
  id: string;
  source: 'SERVICE' | 'GATEWAY' | 'SWEEPER';
  outcome: string;
  charge: bigint;
  lines: UsageLine[];
  promptTokens: number | null;
  completionTokens: number | null;
  executionMs: number | null;
}

export interface SettleResult {
  status: SettleStatus;
  currency: BillingCurrency | null;
  charged: bigint;
  /** What the usage cost beyond the hold: never charged (the hold caps every charge). */
  overHold: bigint;
}
