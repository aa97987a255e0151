import { ConsumptionOrder } from '@svc/contracts';

/** A billing_accounts row; DIEM counters already rolled over to the current epoch. */
export interface AccountBalance {
  balanceUsd: bigint;
  heldUsd: bigint;
  diemStake: bigint;
  diemUsed: bigint;
  diemHeld: bigint;
  /**
   * Of the held amounts, what open credit leases hold (their blocks): part of it is the holds of
   * requests in flight, the rest is credit a gateway has not used yet.
   */
  leased: { usd: bigint; diem: bigint };
  order: ConsumptionOrder;
  /** The current epoch, YYYY-MM-DD (UTC). */
  epoch: string;
}

export type AdjustKind = 'CREDIT' | 'DEBIT';
export type AdjustStatus = 'applied' | 'duplicate' | 'insufficient';

export interface LedgerRow {
  id: string;
  at: string;
  currency: string;
  kind: string;
  amount: bigint;
  epoch: string | null;
  reservationId: string | null;
  reason: string | null;
}

/** An account whose cached balances differ from what its ledger adds up to. */
export interface ReconcileMismatch {
  accountId: string;
  field: string;
  cached: bigint;
  ledger: bigint;
}
