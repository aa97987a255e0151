import { BillableUsage, BillingCurrency, SettledUsage } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { amountIn, ModelPricing, PricingError, quote, Quote } from '@svc/pricing';
import { SettleParams, UsageLine } from './reservation.records';

/** What a settlement charges and records: the total, its usage lines and the counts. */
export type Priced = Pick<SettleParams, 'charge' | 'lines' | 'promptTokens' | 'completionTokens'>;

/** The admission snapshot a settlement prices with (a reservation's row, or a leased request's). */
export interface PriceSnapshot {
  modelId: string;
  pricing: unknown;
  worstCase: BillableUsage;
  currency: BillingCurrency;
}

export const nothingCharged: Priced = { charge: 0n, lines: [], promptTokens: null, completionTokens: null };

/** Prices usage with @svc/pricing; a price the catalog lacks is the caller's error, never a zero charge. */
export function priceUsage(modelId: string, pricing: ModelPricing, usage: BillableUsage): Quote {
  try {
    return quote(modelId, pricing, usage);
  } catch (err) {
    if (err instanceof PricingError) throw new DomainError(ErrorCode.Validation, `This request cannot be priced: ${err.message}.`);
    throw err;
  }
}

/** Actual cost with the admission's price snapshot, in its currency; an unknown prompt count is the reserved one. */
export function settlementPrice(snapshot: PriceSnapshot, usage: SettledUsage): Priced {
  const worst = snapshot.worstCase;
  if (usage.kind !== worst.kind) throw new DomainError(ErrorCode.Validation, `Usage of kind ${usage.kind} cannot settle a ${worst.kind} reservation`);
  const actual: BillableUsage =
    usage.kind === 'text' ? { ...usage, promptTokens: usage.promptTokens ?? (worst.kind === 'text' ? worst.promptTokens : 0) } : usage;
  const q = priceUsage(snapshot.modelId, snapshot.pricing as ModelPricing, actual);
  const currency = snapshot.currency;
  const lines: UsageLine[] = q.lines.map((l) => ({
    type: l.type,
    sku: l.sku,
    unitType: l.unitType,
    quantity: l.quantity,
    perSkuUnit: l.perSkuUnit,
    unitPriceUsd: l.unitPrice.usd.toString(),
    amount: amountIn(l.amount, currency).toString(),
  }));
  return {
    charge: amountIn(q.total, currency),
    lines,
    promptTokens: actual.kind === 'text' ? actual.promptTokens : null,
    completionTokens: actual.kind === 'text' ? actual.completionTokens : null,
  };
}
