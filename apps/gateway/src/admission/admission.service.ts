import { Inject, Injectable, Optional } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ModelDefinition } from '@svc/catalog';
import { BillableUsage, RequestBilling } from '@svc/contracts';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { RouteCall } from '../http/route-call';
import { GATEWAY_LOGGER } from '../logger.token';
import { GatewayMetrics, NO_METRICS } from '../metrics/gateway-metrics';
import { setModelHeaders } from '../models/model-headers';
import { ADMISSION_STAGES, AdmissionRefusals, AdmissionRequest, AdmissionStage, AdmissionTicket, ResponseCost, UsageReport } from './admission.types';

/** What a handler running under an admission gets: the billing reference for its service, and prices. */
export interface Admitted {
  /** Passed with the request to the service that runs it; that service settles with exact counts. */
  readonly billing: RequestBilling | undefined;
  /** The `cost` of a chat response, at the prices the request was admitted at. */
  costOf(usage: { promptTokens: number; completionTokens: number }): ResponseCost | undefined;
  /** Set when the completion must stay within this many tokens: all the credit left covers (AdmissionRequest `shrink`). */
  readonly completionCap: number | undefined;
}

/** What a handler returns: its result and the usage the admission settles with (null: nothing was produced). */
export interface AdmittedOutcome<T> {
  result: T;
  usage: UsageReport | null;
}

/** Where it was declared before http/route-call.ts: batches/ still imports it from here. */

/** An HTTP request's admission for one model (AdmissionService.forModel). */
export interface ModelAdmission {
  /** Admits the call for `worstCase` and runs `work` under it (AdmissionService.run, with the reply's headers). */
  run<T>(
    worstCase: BillableUsage,
    work: (admitted: Admitted) => Promise<AdmittedOutcome<T>>,
    options?: Pick<AdmissionRequest, 'ownReservation' | 'reservationId' | 'exactWorstCase' | 'refusalHint' | 'shrink'>,
  ): Promise<T>;
}

/** The admission of one request: every stage admitted it; settle once when it is over. */
class Admission implements Admitted {
  private settled = false;
  readonly billing: RequestBilling | undefined;
  readonly completionCap: number | undefined;
  /** A property, not a method: handlers destructure it. */
  readonly costOf: Admitted['costOf'];
  /** The last price asked for: a handler prices its answer's usage, settlement counts the same one. */
  private priced?: { usage: object; cost: ResponseCost | undefined };

  constructor(
    private readonly tickets: AdmissionTicket[],
    private readonly logger: Logger,
    private readonly requestId: string,
    private readonly request: AdmissionRequest,
    private readonly metrics: GatewayMetrics,
  ) {
    this.billing = tickets.find((t) => t.billing)?.billing;
    this.completionCap = tickets.find((t) => t.completionCap !== undefined)?.completionCap;
    const pricer = tickets.find((t) => t.costOf);
    this.costOf = (usage) => {
      if (this.priced?.usage === usage) return this.priced.cost;
      const cost = pricer?.costOf?.(usage);
      this.priced = { usage, cost };
      return cost;
    };
  }

  applyHeaders(reply: FastifyReply): void {
    for (const ticket of this.tickets) for (const [name, value] of Object.entries(ticket.headers)) reply.header(name, value);
  }

  /** Idempotent; never throws (a settlement failure is logged, the response is already decided). */
  async settle(usage: UsageReport | null): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    if (usage && this.metrics.enabled) this.count(usage);
    await settleAll(this.tickets, usage, this.logger, this.requestId);
  }

  /** Tokens, and the charge of a text request at the gateway's count (the service settles exactly). */
  private count(usage: UsageReport): void {
    const model = this.request.model.id;
    this.metrics.usage(model, usage.promptTokens, usage.completionTokens);
    if (this.request.worstCase.kind !== 'text') return;
    const cost = this.costOf(usage);
    if (cost) this.metrics.creditCharged(model, cost);
  }
}

/**
 * The one way a gateway handler runs inference: admission stages in order (a refusal releases what
 * earlier stages admitted), the handler with its admission, then exactly one settlement: the
 * handler's usage when it returns, null (release) when it throws. See docs/billing.md.
 */
@Injectable()
export class AdmissionService {
  constructor(
    @Inject(ADMISSION_STAGES) private readonly stages: AdmissionStage[],
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Optional() private readonly metrics: GatewayMetrics = NO_METRICS,
    @Optional() private readonly refusals?: AdmissionRefusals,
  ) {}

  /** `reply` receives the stages' headers (rate limits, balances); null for internal sub-requests. */
  async run<T>(request: AdmissionRequest, reply: FastifyReply | null, work: (admitted: Admitted) => Promise<AdmittedOutcome<T>>): Promise<T> {
    if (reply) reply.request.metricsModel = request.model.id;
    const admission = await this.admit(request).catch(async (err: unknown) => {
      // A wallet short of credit gets x402's own 402 (docs/wallet.md, "Out of credit").
      throw reply && this.refusals ? await this.refusals.explain(err, request, reply.request) : err;
    });
    if (reply) admission.applyHeaders(reply);
    let outcome: AdmittedOutcome<T>;
    try {
      outcome = await work(admission);
    } catch (err) {
      await admission.settle(null);
      throw err;
    }
    await admission.settle(outcome.usage);
    return outcome.result;
  }

  /**
   * How an inference route admits its request: the model's headers go on the reply now (so the
   * route's own 4xx from here on carry them too), and `run` builds the admission request from the
   * call (request id, API key, client address) and the model.
   */
  forModel(call: RouteCall, model: ModelDefinition): ModelAdmission {
    const { caller, request, reply } = call;
    setModelHeaders(reply, model);
    return {
      run: (worstCase, work, options) =>
        this.run({ requestId: caller.requestId, key: request.apiKey!, model, worstCase, ip: request.ip, ...options }, reply, work),
    };
  }

  private async admit(request: AdmissionRequest): Promise<Admission> {
    const tickets: AdmissionTicket[] = [];
    try {
      for (const stage of this.stages) tickets.push(await stage.admit(request));
    } catch (err) {
      // Only billing refuses for credit; rate limits and abuse blocks are counted where they are decided.
      if (err instanceof DomainError && err.code === ErrorCode.InsufficientCredits) this.metrics.refused('insufficient_balance', request.model.id);
      await settleAll(tickets, null, this.logger, request.requestId);
      throw err;
    }
    return new Admission(tickets, this.logger, request.requestId, request, this.metrics);
  }
}

async function settleAll(tickets: AdmissionTicket[], usage: UsageReport | null, logger: Logger, requestId: string): Promise<void> {
  await Promise.all(
    tickets.map((ticket) => ticket.settle(usage).catch((err: unknown) => logger.error({ requestId, err: errorMessage(err) }, 'admission settlement failed'))),
  );
}

/** Usage for requests that are not counted in tokens (images, audio): limits count the request only. */
export const NO_TOKENS: UsageReport = { promptTokens: 0, completionTokens: 0 };
