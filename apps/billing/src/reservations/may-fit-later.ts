import { BillingCurrency, ConsumptionOrder } from '@svc/contracts';
import { drawOrder } from '../shared/consumption';

/** An account's credit and a key's window as they stand, settled and held apart (nano). */
export interface MarginState {
  order: ConsumptionOrder;
  balanceUsd: bigint;
  heldUsd: bigint;
  diemStake: bigint;
  /** Of the current epoch (zero when the account's epoch is older). */
  diemUsed: bigint;
  diemHeld: bigint;
  /** The key's window; zero where it has none yet. */
  key: { usedUsd: bigint; usedDiem: bigint; heldUsd: bigint; heldDiem: bigint };
}

export interface MarginAsk {
  cost: { usd: bigint; diem: bigint };
  limits: { usd: bigint | null; diem: bigint | null };
}

/**
 * Whether a refused request may fit once what is held now is settled: in some currency of the
 * account's order, the request fits the settled balance and the key's settled use, and whatever
 * refuses it now (the balance, the key's limit, or both) has something held that settling can
 * return. A request that fits now already counts (its retry will be admitted).
 */
export function mayFitLater(state: MarginState, ask: MarginAsk): boolean {
  return drawOrder(state.order, state.diemStake).some((currency) => fitsLater(state, ask, currency));
}

function fitsLater(state: MarginState, ask: MarginAsk, currency: BillingCurrency): boolean {
  const usd = currency === 'USD';
  if (!usd && state.diemStake === 0n) return false;
  const cost = usd ? ask.cost.usd : ask.cost.diem;
  const settled = usd ? state.balanceUsd : state.diemStake - state.diemUsed;
  const held = usd ? state.heldUsd : state.diemHeld;
  if (cost > settled) return false;
  const balanceRefuses = cost > settled - held;
  if (balanceRefuses && held === 0n) return false;
  const limit = usd ? ask.limits.usd : ask.limits.diem;
  if (limit === null) return true;
  const used = usd ? state.key.usedUsd : state.key.usedDiem;
  const keyHeld = usd ? state.key.heldUsd : state.key.heldDiem;
  if (used + cost > limit) return false;
  const limitRefuses = used + keyHeld + cost > limit;
  return !limitRefuses || keyHeld > 0n;
}
