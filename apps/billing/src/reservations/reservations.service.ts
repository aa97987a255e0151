import { Inject, Injectable } from '@nestjs/common';
import { MayFitLaterReply, ReserveReply, SettleReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { amountOf } from '@svc/pricing';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { drawOrder } from '../shared/consumption';
import { BILLING_LOGGER } from '../shared/logger.token';
import { refusalMessage } from './insufficient-credits';
import { ReservationCache } from './reservation.cache';
import { OpenReservation } from './reservation.records';
import { mayFitLater } from './may-fit-later';
import { MayFitLaterInput, ReserveInput, SettleInput } from './reservation.schemas';
import { ReservationsRepository } from './reservations.repository';
import { nothingCharged, priceUsage, settlementPrice } from './settlement-price';

/**
 * Admission and settlement rules. Postgres does the atomic part (billing_reserve and
 * billing_settle); this class prices with @svc/pricing, picks the source of a settlement and
 * words refusals.
 */
@Injectable()
export class ReservationsService {
  constructor(
    private readonly reservations: ReservationsRepository,
    private readonly cache: ReservationCache,
    @Inject(BILLING_CONFIG) private readonly config: Pick<BillingConfig, 'BILLING_RESERVATION_TTL_MS' | 'BILLING_SETTLE_GRACE_MS' | 'BILLING_DURABLE_HOLDS'>,
    @Inject(BILLING_LOGGER) private readonly logger: Logger,
  ) {}

  async reserve(input: ReserveInput): Promise<ReserveReply> {
    const cost = priceUsage(input.model.id, input.pricing, input.worstCase).total;
    const limits = {
      usd: input.keyLimits.usd === null ? null : amountOf(input.keyLimits.usd),
      diem: input.keyLimits.diem === null ? null : amountOf(input.keyLimits.diem),
      period: input.keyLimits.period,
    };
    const pricingJson = JSON.stringify(input.pricing);
    const result = await this.reservations.reserve({
      id: input.reservationId,
      accountId: input.accountId,
      apiKeyId: input.apiKeyId,
      requestId: input.requestId,
      cost,
      limits,
      model: input.model,
      pricingJson,
      worstCase: input.worstCase,
      ttlMs: Math.min(input.ttlMs ?? this.config.BILLING_RESERVATION_TTL_MS, this.config.BILLING_RESERVATION_TTL_MS),
      durable: this.config.BILLING_DURABLE_HOLDS,
    });
    if (result.outcome === 'insufficient' || result.outcome === 'key-limit') {
      throw new DomainError(ErrorCode.InsufficientCredits, refusalMessage(result, { cost, limits, order: drawOrder(result.order, result.diemStake) }));
    }
    const currency = result.currency ?? 'USD';
    this.cache.remember(input.reservationId, { modelId: input.model.id, pricing: input.pricing, worstCase: input.worstCase, currency }, pricingJson);
    return {
      reservationId: input.reservationId,
      currency,
      heldNano: result.held.toString(),
      balancesBefore: { usd: result.available.usd.toString(), diem: result.available.diem.toString() },
      replay: result.outcome === 'replay',
    };
  }

  /** At the margin: whether the refused request may fit once what is held now has settled (no lock, nothing held). */
  async mayFitLater(input: MayFitLaterInput): Promise<MayFitLaterReply> {
    const cost = priceUsage(input.model.id, input.pricing, input.worstCase).total;
    const limits = {
      usd: input.keyLimits.usd === null ? null : amountOf(input.keyLimits.usd),
      diem: input.keyLimits.diem === null ? null : amountOf(input.keyLimits.diem),
    };
    const limited = limits.usd !== null || limits.diem !== null;
    const state = await this.reservations.marginState(input.accountId, limited ? input.apiKeyId : null, input.keyLimits.period);
    return { mayFitLater: state !== null && mayFitLater(state, { cost, limits }) };
  }

  async settle(input: SettleInput): Promise<SettleReply> {
    if (input.source === 'gateway' && input.usage !== null) {
      // Only a fallback: the service's exact settlement replaces it; the sweeper applies it if none comes.
      const fallback = { usage: input.usage, outcome: input.outcome === 'completed' ? ('cut' as const) : input.outcome, executionMs: input.executionMs };
      if (await this.reservations.recordFallback(input.reservationId, fallback, this.config.BILLING_SETTLE_GRACE_MS)) {
        return { status: 'fallback-recorded', currency: null, chargedNano: '0' };
      }
    }
    const snapshot = input.usage === null ? null : (this.cache.get(input.reservationId) ?? (await this.reservations.find(input.reservationId)));
    if (input.usage !== null && !snapshot) {
      this.logger.warn({ reservationId: input.reservationId, source: input.source }, 'settlement for an unknown reservation');
      return { status: 'not-found', currency: null, chargedNano: '0' };
    }
    if (snapshot && 'status' in snapshot && snapshot.status === 'SETTLED')
      return { status: 'already-final', currency: snapshot.currency, chargedNano: snapshot.chargedNano.toString() };
    // billing_settle decides under the reservation's lock: released, settled, late or already final.
    const priced = snapshot && input.usage ? settlementPrice(snapshot, input.usage) : null;
    const result = await this.reservations.settle({
      id: input.reservationId,
      source: input.source === 'service' ? 'SERVICE' : 'GATEWAY',
      outcome: input.outcome,
      executionMs: input.executionMs ?? null,
      ...(priced ?? nothingCharged),
    });
    if (result.status !== 'not-found') this.cache.forget(input.reservationId);
    if (result.overHold > 0n) {
      // The gateway's worst case missed part of this request's cost: a defect to fix, never the customer's loss.
      this.logger.error(
        { reservationId: input.reservationId, due: priced?.charge.toString(), overHold: result.overHold.toString() },
        'settlement exceeded its hold: charged the hold only; the admission worst case is too small',
      );
    } else if (result.status === 'settled' && result.charged < (priced?.charge ?? 0n)) {
      this.logger.warn(
        { reservationId: input.reservationId, charged: result.charged.toString(), due: priced?.charge.toString() },
        'late settlement: charged only what the account had left',
      );
    }
    return { status: result.status, currency: result.currency, chargedNano: result.charged.toString() };
  }

  /** For the sweeper: an expired hold, charged from the gateway's count if it left one, else released. */
  async finalizeExpired(reservation: OpenReservation): Promise<SettleReply> {
    const fallback = reservation.fallback;
    const priced = fallback ? settlementPrice(reservation, fallback.usage) : null;
    const result = await this.reservations.settle({
      id: reservation.id,
      source: 'SWEEPER',
      outcome: fallback ? fallback.outcome : 'expired',
      executionMs: fallback?.executionMs ?? null,
      ...(priced ?? nothingCharged),
    });
    this.cache.forget(reservation.id);
    return { status: result.status, currency: result.currency, chargedNano: result.charged.toString() };
  }
}
