import { BalanceReply, BalanceRequest, BootstrapCreditReply, BootstrapCreditRequest, KeyUsageReply, KeyUsageRequest } from './account';
import { LeaseCloseReply, LeaseCloseRequest, LeaseOpenReply, LeaseOpenRequest, SettleBatchReply, SettleBatchRequest } from './lease';
import { MayFitLaterReply, MayFitLaterRequest, ReserveReply, ReserveRequest } from './reserve';
import { LeasedRequest, SettleReply, SettleRequest } from './settle';
import { UsageAnalyticsReply, UsageAnalyticsRequest, UsageHistoryReply, UsageHistoryRequest } from './usage-history';

export const BILLING = {
  /** Hot path: the gateway holds a request's worst-case cost before any model runs. */
  RESERVE: 'billing.cmd.reserve.v1',
  /**
   * At the margin only: a request was refused; may it fit once the credit held by requests still
   * running (on any gateway replica) and by leases is settled? Tells the gateway whether waiting can help.
   */
  MAY_FIT_LATER: 'billing.query.may-fit-later.v1',
  /** The service that ran the request (or the gateway, as release path and fallback) settles it. */
  SETTLE: 'billing.cmd.settle.v1',
  /** Settlements from one service, batched (one message and one transaction per batch). */
  SETTLE_BATCH: 'billing.cmd.settle-batch.v1',
  /** A gateway replica takes a block of an account's credit to admit requests locally (docs/billing.md, "Leases"). */
  LEASE_OPEN: 'billing.cmd.lease-open.v1',
  /** The replica returns what it did not use. */
  LEASE_CLOSE: 'billing.cmd.lease-close.v1',
  BALANCE: 'billing.cmd.balance.v1',
  USAGE_HISTORY: 'billing.cmd.usage-history.v1',
  USAGE_ANALYTICS: 'billing.cmd.usage-analytics.v1',
  KEY_USAGE: 'billing.cmd.key-usage.v1',
  /** From the keys service once it has created or found the `bootstrap` account. */
  BOOTSTRAP_CREDIT: 'billing.cmd.bootstrap-credit.v1',
  /**
   * Broadcast (no queue group): an operator changed what an account may spend in a way credit
   * leases cannot see (its DIEM stake or consumption order). Gateways retire its leases.
   */
  ACCOUNT_CHANGED: 'billing.evt.account-changed.v1',
} as const;

export interface BillingAccountChangedEvent {
  accountId: string;
}

export interface BillingEvents {
  [BILLING.ACCOUNT_CHANGED]: BillingAccountChangedEvent;
}

/** What a service needs to settle the request it runs (passed by the gateway with the request). */
export interface RequestBilling {
  /** Admitted with its own reservation: that reservation's id. Under a lease: the id its settlement will have. */
  reservationId: string;
  /** Set when the request was admitted under a lease (no reservation row exists until it settles). */
  lease?: LeasedRequest;
}

export interface BillingRpc {
  [BILLING.RESERVE]: { req: ReserveRequest; res: ReserveReply };
  [BILLING.MAY_FIT_LATER]: { req: MayFitLaterRequest; res: MayFitLaterReply };
  [BILLING.SETTLE]: { req: SettleRequest; res: SettleReply };
  [BILLING.SETTLE_BATCH]: { req: SettleBatchRequest; res: SettleBatchReply };
  [BILLING.LEASE_OPEN]: { req: LeaseOpenRequest; res: LeaseOpenReply };
  [BILLING.LEASE_CLOSE]: { req: LeaseCloseRequest; res: LeaseCloseReply };
  [BILLING.BALANCE]: { req: BalanceRequest; res: BalanceReply };
  [BILLING.USAGE_HISTORY]: { req: UsageHistoryRequest; res: UsageHistoryReply };
  [BILLING.USAGE_ANALYTICS]: { req: UsageAnalyticsRequest; res: UsageAnalyticsReply };
  [BILLING.KEY_USAGE]: { req: KeyUsageRequest; res: KeyUsageReply };
  [BILLING.BOOTSTRAP_CREDIT]: { req: BootstrapCreditRequest; res: BootstrapCreditReply };
}
