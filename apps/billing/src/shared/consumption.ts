import { BillingCurrency, ConsumptionOrder } from '@svc/contracts';

/** The balances an account draws from, in order; DIEM only when it stakes some. */
export function drawOrder(order: ConsumptionOrder, diemStake: bigint): BillingCurrency[] {
  const all: BillingCurrency[] = order === 'DIEM_FIRST' ? ['DIEM', 'USD'] : order === 'USD_FIRST' ? ['USD', 'DIEM'] : order === 'USD_ONLY' ? ['USD'] : ['DIEM'];
  const usable = all.filter((c) => c === 'USD' || diemStake > 0n);
  return usable.length ? usable : all;
}

/** The balance the next request would use: the first in order with anything left. */
export function consumptionCurrency(order: ConsumptionOrder, available: { usd: bigint; diem: bigint }, diemStake: bigint): BillingCurrency | null {
  return drawOrder(order, diemStake).find((c) => (c === 'USD' ? available.usd : available.diem) > 0n) ?? null;
}
