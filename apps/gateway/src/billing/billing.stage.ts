import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { BILLING, SettleRequest } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { AdmissionRequest, AdmissionStage, AdmissionTicket, UsageReport } from '../admission/admission.types';
import { GATEWAY_LOGGER } from '../logger.token';
import { balanceHeaders } from './balance-headers';
import { responseCost } from './response-cost';

/** A reservation is one round trip; a billing service that cannot answer this fast is treated as down. */
export const RESERVE_TIMEOUT_MS = 5_000;
const SETTLE_TIMEOUT_MS = 10_000;
const SHUTDOWN_WAIT_MS = 5_000;

/**
 * Holds the worst-case cost of the request (prompt estimate + max output tokens at the model's
 * prices) in the billing service before any model runs; 402 when the balance or the key's
 * consumption limit cannot cover it. Exact settlement is the service's job (it knows the counts
 * even when this gateway dies); this stage only
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
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  async admit(request: AdmissionRequest): Promise<AdmissionTicket> {
    const { requestId, key, model, worstCase } = request;
    const reservationId = randomUUID();
    const reply = await this.rpc.send(
      BILLING.RESERVE,
      {
        reservationId,
        requestId,
        accountId: key.accountId,
        apiKeyId: key.id,
        keyLimits: { usd: key.consumptionLimits.usd, diem: key.consumptionLimits.diem, period: key.limitPeriod },
        model: { id: model.id, name: model.name, type: model.type },
        pricing: model.pricing,
        worstCase,
      },
      { requestId, timeoutMs: RESERVE_TIMEOUT_MS },
    );
    return {
      headers: balanceHeaders(reply.balancesBefore),
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
    if (usage === null) {
      // Awaited: a client retrying at once must find its credit available again.
      await this.send(requestId, { reservationId, source: 'gateway', outcome: 'failed', usage: null });
    } else if (usage.cut && isText) {
      // The client has its answer already; the fallback need not delay anything.
      this.track(this.send(requestId, { reservationId, source: 'gateway', outcome: 'cut', usage: { kind: 'text', promptTokens: null, completionTokens: usage.completionTokens } }));
    }
  }

  private async send(requestId: string, request: SettleRequest): Promise<void> {
    try {
      await this.rpc.send(BILLING.SETTLE, request, { requestId, timeoutMs: SETTLE_TIMEOUT_MS });
    } catch (err) {
      // The hold expires and the billing sweeper finalizes it: never lost, only later.
      this.logger.warn({ requestId, reservationId: request.reservationId, err: err instanceof Error ? err.message : String(err) }, 'could not reach billing to settle; the sweeper will');
    }
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
