import { BillingCurrency, LimitPeriod } from '@svc/contracts';
import { formatAmount } from '@svc/pricing';
import { periodLabel } from '../shared/periods';
import { ReserveResult } from './reservation.records';

export interface RefusalContext {
  cost: { usd: bigint; diem: bigint };
  limits: { usd: bigint | null; diem: bigint | null; period: LimitPeriod };
  /** The currencies the account may draw from, in order. */
  order: readonly BillingCurrency[];
}

const money = (nano: bigint, currency: BillingCurrency) => `${formatAmount(nano)} ${currency}`;

/**
 * The 402 message: what the request may cost at most, what is available, and what to do. Names
 * the key's limit when the balance would have covered the request but the limit does not.
 */
export function refusalMessage(result: ReserveResult, ctx: RefusalContext): string {
  const costOf = (c: BillingCurrency) => (c === 'USD' ? ctx.cost.usd : ctx.cost.diem);
  if (result.outcome === 'key-limit') {
    const blocked = ctx.order.find((c) => {
      const limit = c === 'USD' ? ctx.limits.usd : ctx.limits.diem;
      const used = c === 'USD' ? result.keyUsed.usd : result.keyUsed.diem;
      return limit !== null && used + costOf(c) > limit;
    });
    if (blocked) {
      const limit = (blocked === 'USD' ? ctx.limits.usd : ctx.limits.diem) ?? 0n;
      const used = blocked === 'USD' ? result.keyUsed.usd : result.keyUsed.diem;
      return (
        `This API key's ${blocked} consumption limit of ${money(limit, blocked)} per ${periodLabel(ctx.limits.period)} does not cover this request: ` +
        `${money(used, blocked)} is used or reserved, and the request may cost up to ${money(costOf(blocked), blocked)}. ` +
        `Raise the key's consumptionLimit, wait for the next window, or send a smaller max_tokens.`
      );
    }
  }
  const costs = ctx.order.map((c) => money(costOf(c), c)).join(' or ');
  const available = ctx.order.map((c) => money(c === 'USD' ? result.available.usd : result.available.diem, c)).join(' and ');
  return `Insufficient balance: this request may cost up to ${costs}, and the account has ${available} available. Add credits, or send a smaller max_tokens.`;
}
