import { Inject, Injectable } from '@nestjs/common';
import { LeaseCloseReply, LeaseOpenReply } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { amountOf } from '@svc/pricing';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { LeasedRequestInput, SettleInput } from '../reservations/reservation.schemas';
import { nothingCharged, settlementPrice } from '../reservations/settlement-price';
import { BILLING_LOGGER } from '../shared/logger.token';
import { LeasedItem, LeasedResult } from './lease.records';
import { LeaseCloseInput, LeaseOpenInput } from './lease.schemas';
import { LeasesRepository } from './leases.repository';

export type LeasedSettleInput = SettleInput & { lease: LeasedRequestInput };

type LeaseConfig = Pick<
  BillingConfig,
  | 'BILLING_LEASES'
  | 'BILLING_LEASE_MIN_UNITS'
  | 'BILLING_LEASE_MAX_UNITS'
  | 'BILLING_LEASE_FRACTION'
  | 'BILLING_LEASE_ADMIT_MS'
  | 'BILLING_LEASE_TTL_MS'
  | 'BILLING_SETTLE_GRACE_MS'
>;

/**
 * Credit leases (docs/billing.md, "Leases"): opening (sized by the BILLING_LEASE_* settings),
 * closing, and settling the requests admitted under them, priced here with each request's own
 * snapshot and written in one transaction per batch by billing_settle_leased.
 */
@Injectable()
export class LeasesService {
  constructor(
    private readonly leases: LeasesRepository,
    @Inject(BILLING_CONFIG) private readonly config: LeaseConfig,
    @Inject(BILLING_LOGGER) private readonly logger: Logger,
  ) {}

  async open(input: LeaseOpenInput): Promise<LeaseOpenReply> {
    if (!this.config.BILLING_LEASES) return { outcome: 'exact' };
    const result = await this.leases.open({
      id: input.leaseId,
      accountId: input.accountId,
      apiKeyId: input.apiKeyId,
      limits: {
        usd: input.keyLimits.usd === null ? null : amountOf(input.keyLimits.usd),
        diem: input.keyLimits.diem === null ? null : amountOf(input.keyLimits.diem),
        period: input.keyLimits.period,
      },
      unit: { usd: BigInt(input.unitNano.usd), diem: BigInt(input.unitNano.diem) },
      minUnits: this.config.BILLING_LEASE_MIN_UNITS,
      maxUnits: this.config.BILLING_LEASE_MAX_UNITS,
      fraction: this.config.BILLING_LEASE_FRACTION,
      admitMs: this.config.BILLING_LEASE_ADMIT_MS,
      ttlMs: this.config.BILLING_LEASE_TTL_MS,
    });
    if (result.outcome !== 'granted' || !result.currency || !result.admitUntil || !result.expiresAt) return { outcome: 'exact' };
    return {
      outcome: 'granted',
      leaseId: input.leaseId,
      currency: result.currency,
      grantedNano: result.granted.toString(),
      balancesBefore: { usd: result.available.usd.toString(), diem: result.available.diem.toString() },
      admitUntil: result.admitUntil.toISOString(),
      expiresAt: result.expiresAt.toISOString(),
      replay: result.replay,
    };
  }

  async close(input: LeaseCloseInput): Promise<LeaseCloseReply> {
    const result = await this.leases.close(input.leaseId, input.admitted, BigInt(input.admittedNano));
    if (result.status === 'not-found') this.logger.warn({ leaseId: input.leaseId }, 'close of an unknown credit lease');
    return { status: result.status, releasedNano: result.released.toString() };
  }

  /**
   * Settles requests admitted under leases, all in one transaction. A `deferred` result is a
   * request whose gateway fallback made it a held reservation: the caller settles it as one.
   * Throws before anything is written when an item cannot be priced.
   */
  async settle(inputs: LeasedSettleInput[]): Promise<LeasedResult[]> {
    const items = inputs.map((input) => this.item(input));
    const results = await this.leases.settleLeased(items, this.config.BILLING_SETTLE_GRACE_MS);
    results.forEach((result, i) => this.report(items[i], result));
    return results;
  }

  private item(input: LeasedSettleInput): LeasedItem {
    const { lease } = input;
    const priced =
      input.usage === null
        ? nothingCharged
        : settlementPrice({ modelId: lease.model.id, pricing: lease.pricing, worstCase: lease.worstCase, currency: lease.currency }, input.usage);
    const fallback =
      input.source === 'gateway' && input.usage !== null
        ? { usage: input.usage, outcome: input.outcome === 'completed' ? ('cut' as const) : input.outcome, executionMs: input.executionMs }
        : null;
    return {
      id: input.reservationId,
      leaseId: lease.leaseId,
      apiKeyId: lease.apiKeyId ?? null,
      currency: lease.currency,
      requestId: lease.requestId,
      model: lease.model,
      pricing: lease.pricing,
      worstCase: lease.worstCase,
      held: BigInt(lease.heldNano),
      source: input.source === 'service' ? 'SERVICE' : 'GATEWAY',
      outcome: input.outcome,
      executionMs: input.executionMs ?? null,
      fallback,
      ...priced,
    };
  }

  /** The same logs as a reservation's settlement (ReservationsService.settle). */
  private report(item: LeasedItem, result: LeasedResult): void {
    const ids = { reservationId: item.id, leaseId: item.leaseId };
    if (result.status === 'not-found') {
      this.logger.warn({ ...ids, currency: item.currency, source: item.source }, 'settlement for an unknown credit lease (or another currency than the lease)');
    } else if (result.overHold > 0n) {
      // The gateway's worst case missed part of this request's cost: a defect to fix, never the customer's loss.
      this.logger.error(
        { ...ids, due: item.charge.toString(), overHold: result.overHold.toString() },
        'settlement exceeded its hold: charged the hold only; the admission worst case is too small',
      );
    } else if (result.status === 'settled' && result.charged < item.charge) {
      this.logger.warn({ ...ids, charged: result.charged.toString(), due: item.charge.toString() }, 'late settlement: charged only what the account had left');
    }
  }
}
