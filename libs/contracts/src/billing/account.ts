import { LimitPeriod } from '../keys/api-key';
import { BillingCurrency, ConsumptionOrder, Nano, NanoAmounts } from './money';

export interface BalanceRequest {
  accountId: string;
}

export interface BalanceReply {
  /** Available USD: settled balance minus open holds. */
  usdNano: Nano;
  /** Available DIEM in the current epoch: allocation minus consumed minus open holds. */
  diemNano: Nano;
  /** The DIEM stake, i.e. the allocation of every epoch (1 DIEM staked = 1 DIEM of credit per day). */
  diemAllocationNano: Nano;
  consumptionOrder: ConsumptionOrder;
  /** The balance the next request would draw from; null when neither has anything left. */
  consumptionCurrency: BillingCurrency | null;
  canConsume: boolean;
  /** The current DIEM epoch (UTC day), YYYY-MM-DD. */
  epoch: string;
}

/** Credits the account named `bootstrap` with SVC_BOOTSTRAP_CREDITS_USD, once ever. */
export interface BootstrapCreditRequest {
  accountId: string;
}

export interface BootstrapCreditReply {
  /** False when it had been credited before (or the configured amount is 0). */
  credited: boolean;
  amountNano: Nano;
}

/** Usage of API keys for their records: the current limit window and the trailing 7 days. */
export interface KeyUsageRequest {
  accountId: string;
  keys: Array<{ id: string; limitPeriod: LimitPeriod }>;
}

export interface KeyUsageReply {
  usage: Record<string, { currentPeriod: NanoAmounts; trailingSevenDays: NanoAmounts }>;
}
