import { Inject, Injectable } from '@nestjs/common';
import { BalanceReply, BootstrapCreditReply, ConsumptionOrder } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { formatAmount, parseAmount } from '@svc/pricing';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { consumptionCurrency } from '../shared/consumption';
import { BILLING_LOGGER } from '../shared/logger.token';
import { utcDay } from '../shared/periods';
import { AccountBalance, AdjustKind, LedgerRow, ReconcileMismatch } from './account.records';
import { AccountsRepository } from './accounts.repository';

export const bootstrapIdempotencyKey = (accountId: string): string => `bootstrap:${accountId}`;

@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    @Inject(BILLING_CONFIG) private readonly config: Pick<BillingConfig, 'SVC_BOOTSTRAP_CREDITS_USD' | 'BILLING_SETTLE_GRACE_MS'>,
    @Inject(BILLING_LOGGER) private readonly logger: Logger,
  ) {}

  async balance(accountId: string): Promise<BalanceReply> {
    const account = (await this.accounts.balance(accountId)) ?? emptyAccount();
    // A lease's block is not spent: it is shown as available until its requests settle, so the
    // balance a client reads right after a request is what it has, not minus a gateway's block.
    // (Admission still counts the blocks; docs/billing.md, "Leases".)
    const available = {
      usd: account.balanceUsd - account.heldUsd + account.leased.usd,
      diem: max0(account.diemStake - account.diemUsed - account.diemHeld + account.leased.diem),
    };
    const currency = consumptionCurrency(account.order, available, account.diemStake);
    return {
      usdNano: available.usd.toString(),
      diemNano: available.diem.toString(),
      diemAllocationNano: account.diemStake.toString(),
      consumptionOrder: account.order,
      consumptionCurrency: currency,
      canConsume: currency !== null,
      epoch: account.epoch,
    };
  }

  /** SVC_BOOTSTRAP_CREDITS_USD to the bootstrap account, once ever: replicas and restarts ask again harmlessly. */
  async bootstrapCredit(accountId: string): Promise<BootstrapCreditReply> {
    const amount = parseAmount(this.config.SVC_BOOTSTRAP_CREDITS_USD);
    if (amount === 0n) return { credited: false, amountNano: '0' };
    const result = await this.accounts.adjust(accountId, 'CREDIT', amount, 'Bootstrap credit (SVC_BOOTSTRAP_CREDITS_USD)', bootstrapIdempotencyKey(accountId));
    if (result.status === 'applied') this.logger.info({ accountId, amountUsd: formatAmount(amount) }, 'credited the bootstrap account');
    return { credited: result.status === 'applied', amountNano: amount.toString() };
  }

  async adjust(accountId: string, kind: AdjustKind, amount: bigint, reason: string, idempotencyKey: string | null) {
    if (amount <= 0n) throw new DomainError(ErrorCode.Validation, 'The amount must be positive.');
    const result = await this.accounts.adjust(accountId, kind, amount, reason, idempotencyKey);
    if (result.status === 'insufficient') {
      throw new DomainError(
        ErrorCode.Conflict,
        `Cannot debit ${formatAmount(amount)} USD: the account has ${formatAmount(result.available)} USD available (balance minus open reservations).`,
      );
    }
    return result;
  }

  setStake(accountId: string, stake: bigint, reason: string): Promise<{ previous: bigint; stake: bigint }> {
    return this.accounts.setStake(accountId, stake, reason);
  }

  setConsumptionOrder(accountId: string, order: ConsumptionOrder): Promise<void> {
    return this.accounts.setConsumptionOrder(accountId, order);
  }

  ledger(accountId: string, limit: number): Promise<LedgerRow[]> {
    return this.accounts.ledger(accountId, limit);
  }

  reconcile(accountId: string | null): Promise<{ accounts: number; mismatches: ReconcileMismatch[]; overdueHolds: number }> {
    return this.accounts.reconcile(accountId, this.config.BILLING_SETTLE_GRACE_MS);
  }
}

const max0 = (n: bigint): bigint => (n > 0n ? n : 0n);

function emptyAccount(): AccountBalance {
  return { balanceUsd: 0n, heldUsd: 0n, diemStake: 0n, diemUsed: 0n, diemHeld: 0n, leased: { usd: 0n, diem: 0n }, order: 'DIEM_FIRST', epoch: utcDay() };
}
