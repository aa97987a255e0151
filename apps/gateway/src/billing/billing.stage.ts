import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { BILLING, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Logger } from '@svc/logging';
import { QUICK_CALL_IDLE_MS, retryIfUnavailable, RpcClient } from '@svc/messaging';
import { BillingSettler } from '@svc/billing-client';
import { amountIn, PricingError, quote } from '@svc/pricing';
import { AdmissionRequest, AdmissionStage, AdmissionTicket, UsageReport } from '../admission/admission.types';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { GATEWAY_LOGGER } from '../logger.token';
import { GatewayMetrics, NO_METRICS } from '../metrics/gateway-metrics';
import { balanceHeaders } from './balance-headers';
import { CreditLeases } from './credit-leases';
import { responseCost } from './response-cost';
import { RunningAccounts } from './running-accounts';

/** A reservation is one round trip; a billing service that cannot answer this fast is treated as down. */
export const RESERVE_TIMEOUT_MS = 5_000;
const SETTLE_TIMEOUT_MS = 10_000;
const SHUTDOWN_WAIT_MS = 5_000;
/**
 * Waits between the retries of a request refused at the margin once none of its account's requests
 * runs here any more: the last ones' settlements reach billing in the background, a few ms later.
 */
const QUIET_RETRIES = [25, 50, 100, 200, 400];
/** Waits between the retries of a request refused while credit is held elsewhere (another replica, a lease), growing to the last. */
const REMOTE_POLLS = [50, 100, 200, 250];
/** The smallest completion cap a request is shrunk to at the margin: below it, a 402 serves the caller better. */
export const MIN_CAPPED_COMPLETION = 16;

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
  private readonly running = new RunningAccounts();
  private readonly marginWaitMs: number;

  constructor(
    private readonly rpc: RpcClient,
    private readonly leases: CreditLeases,
    private readonly settler: BillingSettler,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Optional() private readonly metrics: GatewayMetrics = NO_METRICS,
    @Optional() @Inject(GATEWAY_CONFIG) config?: Pick<GatewayConfig, 'BILLING_MARGIN_WAIT_MS'>,
  ) {
    this.marginWaitMs = config?.BILLING_MARGIN_WAIT_MS ?? 0;
  }

  async admit(request: AdmissionRequest): Promise<AdmissionTicket> {
    try {
      return await this.admitFor(request);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      // Exact at the margin: the cheap bound did not fit, so the worst case is counted exactly
      // (one more round trip, for these requests only) and the request admitted or refused on it.
      const exact = request.exactWorstCase && (await request.exactWorstCase().catch(() => null));
      const tight = exact && tighter(exact, request.worstCase) ? { ...request, worstCase: exact } : request;
      if (tight !== request) this.metrics.exactAdmission(request.model.id);
      return this.admitWhenRoom(tight, tight === request ? err : undefined);
    }
  }

  /**
   * Admits `request`, waiting (up to BILLING_MARGIN_WAIT_MS) while requests of its account run
   * here: each one that ends may return part of its hold. Refused for good once none runs, nor
   * ended in the last 2 s (billing settles in the background: a few retries follow an end).
   * `refused`: the refusal already known for this very worst case, so the first attempt waits
   * instead of asking again.
   */
  private async admitWhenRoom(request: AdmissionRequest, refused?: DomainError): Promise<AdmissionTicket> {
    // A key with a consumption limit waits on its own requests (the limit is what other keys'
    // requests cannot free), a key without one on its account's.
    const scope = hasLimit(request.key) ? keyScope(request.key) : request.key.accountId;
    const deadline = Date.now() + this.marginWaitMs;
    let refusal = refused;
    for (let quiet = 0, polls = 0; ;) {
      if (refusal) {
        const left = deadline - Date.now();
        if (left <= 0) return this.admitShrunk(request, refusal);
        if (this.running.running(scope) > 0) await this.running.nextEnd(scope, left);
        else if (quiet < QUIET_RETRIES.length && this.running.endedRecently(scope)) await sleep(Math.min(QUIET_RETRIES[quiet++], left));
        // Nothing of its own runs here: billing knows whether credit held elsewhere (another
        // replica's requests, a lease) would make room once settled.
        else if (await this.mayFitLater(request)) await sleep(Math.min(REMOTE_POLLS[Math.min(polls++, REMOTE_POLLS.length - 1)], left));
        else return this.admitShrunk(request, refusal);
      }
      try {
        return await this.admitFor(request);
      } catch (err) {
        if (!isRefusal(err)) throw err;
        refusal = err;
      }
    }
  }

  /**
   * The last resort at the margin: the completion capped at half its cap, then a quarter, ... down
   * to MIN_CAPPED_COMPLETION tokens, the first that fits admitted (a few reservations, each one
   * SQL call). A request that asked for fewer than that is refused as it is.
   */
  private async admitShrunk(request: AdmissionRequest, refusal: DomainError): Promise<AdmissionTicket> {
    const shrink = request.shrink;
    for (let cap = Math.floor((shrink?.cap ?? 0) / 2); shrink && cap >= MIN_CAPPED_COMPLETION; cap = Math.floor(cap / 2)) {
      try {
        const ticket = await this.admitFor({ ...request, worstCase: shrink.worstCaseFor(cap) });
        return { ...ticket, completionCap: cap, headers: { ...ticket.headers, [HEADER.completionCapped]: String(cap) } };
      } catch (err) {
        if (!isRefusal(err)) throw err;
      }
    }
    throw withHint(refusal, request.refusalHint);
  }

  private async admitFor(request: AdmissionRequest): Promise<AdmissionTicket> {
    const ticket =
      request.ownReservation || request.reservationId ? await this.reserve(request) : ((await this.admitLeased(request)) ?? (await this.reserve(request)));
    if (this.marginWaitMs === 0) return ticket; // nobody waits on running requests: nothing to count
    const endAccount = this.running.begin(request.key.accountId);
    const endKey = hasLimit(request.key) ? this.running.begin(keyScope(request.key)) : undefined;
    const end = () => {
      endAccount();
      endKey?.();
    };
    const settle: AdmissionTicket['settle'] = async (usage) => {
      try {
        await ticket.settle(usage);
      } finally {
        end();
      }
    };
    return Object.assign({}, ticket, { settle });
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
        if (report) this.settler.send(Object.assign(report, { lease: billing.lease }), requestId);
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

  /** Whether the refused request may fit once what its account (or key) holds now is settled; a billing that cannot say counts as no. */
  private async mayFitLater(request: AdmissionRequest): Promise<boolean> {
    try {
      const reply = await this.rpc.send(BILLING.MAY_FIT_LATER, this.ask(request), {
        requestId: request.requestId,
        timeoutMs: RESERVE_TIMEOUT_MS,
        idleTimeoutMs: QUICK_CALL_IDLE_MS,
      });
      return reply.mayFitLater;
    } catch {
      return false;
    }
  }

  /** What billing needs to price and place a request: a reservation without its id. */
  private ask({ requestId, key, model, worstCase }: AdmissionRequest) {
    return {
      requestId,
      accountId: key.accountId,
      apiKeyId: key.id,
      keyLimits: { usd: key.consumptionLimits.usd, diem: key.consumptionLimits.diem, period: key.limitPeriod },
      model: { id: model.id, name: model.name, type: model.type },
      pricing: model.pricing,
      worstCase,
    };
  }

  private async reserve(request: AdmissionRequest): Promise<AdmissionTicket> {
    const { requestId, key, model, worstCase } = request;
    const reservationId = request.reservationId ?? randomUUID();
    const reserve = { reservationId, ...this.ask(request) };
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
        { requestId, reservationId: request.reservationId, err: errorMessage(err) },
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isRefusal = (err: unknown): err is DomainError => err instanceof DomainError && err.code === ErrorCode.InsufficientCredits;

/** A worst case with fewer tokens than the bound it replaces (text and embeddings: the other kinds are priced exactly already). */
function tighter(exact: AdmissionRequest['worstCase'], bound: AdmissionRequest['worstCase']): boolean {
  if (exact.kind === 'text' && bound.kind === 'text') return exact.promptTokens + exact.completionTokens < bound.promptTokens + bound.completionTokens;
  if (exact.kind === 'embedding' && bound.kind === 'embedding') return exact.inputTokens < bound.inputTokens;
  return false;
}

function withHint(err: DomainError, hint: string | undefined): DomainError {
  if (!hint) return err;
  return new DomainError(err.code, `${err.message} ${hint}`, err.details, { retryAfterSeconds: err.retryAfterSeconds, openai: err.openai });
}

const hasLimit = (key: AdmissionRequest['key']): boolean => key.consumptionLimits.usd !== null || key.consumptionLimits.diem !== null;
const keyScope = (key: AdmissionRequest['key']): string => `key:${key.id}`;
