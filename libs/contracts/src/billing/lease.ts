import { LimitPeriod } from '../keys/api-key';
import { BillingCurrency, Nano, NanoAmounts } from './money';
import { SettleReply, SettleRequest } from './settle';

/**
 * A credit lease: one gateway replica holds a block of an account's available balance (and, for a
 * key with a consumption limit, of that key's window) in one transaction, then admits requests
 * against it in memory, with no round trip to billing. Billing grants one only when the account
 * (and the key's limit) can pay for many worst cases; otherwise it answers `exact` and the gateway
 * reserves per request (BILLING.RESERVE), so a small balance or a tight limit admits exactly what
 * it can pay for. See docs/billing.md, "Leases".
 */
export interface LeaseOpenRequest {
  /** A UUID chosen by the gateway; the same id sent again gets the first answer. */
  leaseId: string;
  accountId: string;
  /** The key whose consumption limit the lease also holds; null: the lease serves the account's unlimited keys. */
  apiKeyId: string | null;
  /** The key's limits (all null with apiKeyId null). */
  keyLimits: { usd: number | null; diem: number | null; period: LimitPeriod };
  /** The worst-case cost of the request that asked, in both currencies: the lease is sized in these units. */
  unitNano: NanoAmounts;
}

export type LeaseOpenReply =
  | {
      outcome: 'granted';
      leaseId: string;
      /** Every request admitted under the lease is paid in this currency. */
      currency: BillingCurrency;
      grantedNano: Nano;
      /** Available balances just before the grant (the grant included). */
      balancesBefore: NanoAmounts;
      /** ISO time after which the gateway admits nothing more under this lease. */
      admitUntil: string;
      /** ISO time at which billing may return what the lease still holds, whatever the gateway says (crash bound). */
      expiresAt: string;
      /** True when this lease existed already (a retried open). */
      replay: boolean;
    }
  /** Too little balance or limit left for a block: reserve each request exactly. */
  | { outcome: 'exact' };

/**
 * The gateway is done admitting under a lease and none of its requests is still running there.
 * Billing returns `grantedNano - admittedNano` at once, and the rest once `admitted` requests have
 * settled (or at `expiresAt` plus the settle grace, whichever comes first).
 */
export interface LeaseCloseRequest {
  leaseId: string;
  /** Requests admitted under the lease. */
  admitted: number;
  /** The sum of their holds. */
  admittedNano: Nano;
}

export interface LeaseCloseReply {
  status: 'closed' | 'closing' | 'already-closed' | 'not-found';
  /** Returned to the account by this call. */
  releasedNano: Nano;
}

/** Several settlements in one message and one transaction; replies in the same order. At most SETTLE_BATCH_MAX items. */
export interface SettleBatchRequest {
  items: SettleRequest[];
}

export interface SettleBatchReply {
  results: SettleReply[];
}

export const SETTLE_BATCH_MAX = 256;
