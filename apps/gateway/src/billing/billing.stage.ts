import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { BILLING, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { QUICK_CALL_IDLE_MS, retryIfUnavailable, RpcClient } from '@svc/messaging';
import { BillingSettler } from '@svc/billing-client';
import { amountIn, PricingError, quote } from '@svc/pricing';
import { AdmissionRequest, AdmissionStage, AdmissionTicket, UsageReport } from '../admission/admission.types';
import { GATEWAY_LOGGER } from '../logger.token';
import { GatewayMetrics, NO_METRICS } from '../metrics/gateway-metrics';
import { balanceHeaders } from './balance-headers';
import { CreditLeases } from './credit-leases';
import { responseCost } from './response-cost';

/** A reservation is one round trip; a billing service that cannot answer this fast is treated as down. */
export const RESERVE_TIMEOUT_MS = 5_000;
const SETTLE_TIMEOUT_MS = 10_000;
const SHUTDOWN_WAIT_MS = 5_000;

/**
 * Holds the worst-case cost of the request (prompt estimate + max output tokens at the model's
 * prices) before any model runs: under this replica's credit lease of the account when it has one
 * (no round trip; see CreditLeases), else in a reservation of its own in the billing service,
 * which answers 402 when the balance or the key's consumption limit cannot cover it. Exact
 * settlement is the service's job (it knows the counts even when this gateway dies); this stage
 * only
 * - releases the hold at once when nothing reached a service or it failed before producing
 *   anything (`settle(null)`), and
 * - reports its own count of a cut or broken stream as a fallback the service's settlement
 *   replaces (the billing sweeper applies it if the service died).
 * A completed request needs nothing from here. See docs/billing.md.
 */
@Injectable()
export class BillingStage implements AdmissionStage, OnApplicationShutdown {
  readonly name = 'billing';
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly leases: CreditLeases,
    private readonly settler: BillingSettler,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Optional() private readonly metrics: GatewayMetrics = NO_METRICS,
  ) {}

  async admit(request: AdmissionRequest): Promise<AdmissionTicket> {
    if (!request.ownReservation) {
      const leased = await this.admitLeased(request);
      if (leased) return leased;
    }
    return this.reserve(request);
  }

  /** Under the account's credit lease, or null when billing wants this one reserved exactly. */
  private async admitLeased(request: AdmissionRequest): Promise<AdmissionTicket | null> {
    const { requestId, key, model, worstCase } = request;
    const total = this.price(model.id, model.pricing, worstCase);
    const grant = await this.leases.take(key, { usd: amountIn(total, 'USD'), diem: amountIn(total, 'DIEM') }, requestId);
    if (!grant) return null;
    const { lease, hold } = grant;
    this.metrics.creditHeld(model.id, lease.currency, hold);
    const reservationId = randomUUID();
    const billing = {
      reservationId,
      lease: {
        leaseId: lease.id,
        currency: lease.currency,
        heldNano: hold.toString(),
        requestId,
        apiKeyId: key.id,
        model: { id: model.id, name: model.name, type: model.type },
        pricing: model.pricing,
        worstCase,
      },
    };
    return {
      headers: balanceHeaders(grant.balancesBefore, key),
      billing,
      costOf: (usage) => responseCost(model.id, model.pricing, lease.currency, usage),
      settle: async (usage) => {
        // The hold stays spent in this replica whatever happens; what the request did not cost
        // returns to the account when the lease closes. Releases and fallbacks go in batches.
        const report = this.gatewaySettlement(reservationId, worstCase.kind === 'text', usage);
        if (report) this.settler.send({ ...report, lease: billing.lease }, requestId);
        grant.end();
      },
    };
  }

  private price(modelId: string, pricing: AdmissionRequest['model']['pricing'], worstCase: AdmissionRequest['worstCase']) {
    try {
      return quote(modelId, pricing, worstCase).total;
    } catch (err) {
      if (err instanceof PricingError) throw new DomainError(ErrorCode.Validation, `This request cannot be priced: ${err.message}.`);
      throw err;
    }
  }

  private async reserve(request: AdmissionRequest): Promise<AdmissionTicket> {
    const { requestId, key, model, worstCase } = request;
    const reservationId = randomUUID();
    const reserve = {
      reservationId,
      requestId,
      accountId: key.accountId,
      apiKeyId: key.id,
      keyLimits: { usd: key.consumptionLimits.usd, diem: key.consumptionLimits.diem, period: key.limitPeriod },
      model: { id: model.id, name: model.name, type: model.type },
      pricing: model.pricing,
      worstCase,
    };
    const reply = await retryIfUnavailable(() =>
      this.rpc.send(BILLING.RESERVE, reserve, { requestId, timeoutMs: RESERVE_TIMEOUT_MS, idleTimeoutMs: QUICK_CALL_IDLE_MS }),
    );
    this.metrics.creditHeld(model.id, reply.currency, BigInt(reply.heldNano));
    return {
      headers: balanceHeaders(reply.balancesBefore, key),
      billing: { reservationId },
      costOf: (usage) => responseCost(model.id, model.pricing, reply.currency, usage),
      settle: (usage) => this.settle(requestId, reservationId, worstCase.kind === 'text', usage),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    const timeout = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref());
    await Promise.race([Promise.all(this.pending), timeout]);
  }

  private async settle(requestId: string, reservationId: string, isText: boolean, usage: UsageReport | null): Promise<void> {
    const report = this.gatewaySettlement(reservationId, isText, usage);
    if (!report) return;
    // A release is awaited: a client retrying at once must find its credit available again. A
    // fallback is not: the client has its answer already.
    if (report.usage === null) await this.send(requestId, report);
    else this.track(this.send(requestId, report));
  }

  /**
   * What the gateway tells billing when a request ends: a release when nothing was produced (or
   * the service failed first), its own count of a cut or broken stream as a fallback the service's
   * exact settlement replaces, and nothing for a completed request (the service settles it).
   */
  private gatewaySettlement(reservationId: string, isText: boolean, usage: UsageReport | null): SettleRequest | null {
    if (usage === null) return { reservationId, source: 'gateway', outcome: 'failed', usage: null };
    if (usage.cut && isText)
      return { reservationId, source: 'gateway', outcome: 'cut', usage: { kind: 'text', promptTokens: null, completionTokens: usage.completionTokens } };
    return null;
  }

  private async send(requestId: string, request: SettleRequest): Promise<void> {
    try {
      await this.rpc.send(BILLING.SETTLE, request, { requestId, timeoutMs: SETTLE_TIMEOUT_MS });
    } catch (err) {
      // Retried in the background (the settler backs off for about 20 s): a release must arrive,
      // or a service's settlement could charge a request whose client got an error. If billing
      // stays away longer, the hold expires and the sweeper releases it: never lost, only later.
      this.logger.warn(
        { requestId, reservationId: request.reservationId, err: err instanceof Error ? err.message : String(err) },
        'could not reach billing to settle; retrying in the background',
      );
      this.settler.send(request, requestId);
    }
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
