import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { BILLING, RequestBilling, SettledUsage, SettleOutcome, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { RpcClient } from './rpc-client';

/** The logger a service gives to messaging helpers (BillingSettler). */
export const SERVICE_LOGGER = Symbol('SERVICE_LOGGER');

const ATTEMPT_TIMEOUT_MS = 5_000;
/** Backoff 100 ms doubling to 5 s: about 20 s of retries, inside billing's settle grace (30 s). */
const MAX_ATTEMPTS = 8;
const SHUTDOWN_WAIT_MS = 5_000;
const RETRYABLE = new Set<ErrorCode>([ErrorCode.ServiceUnavailable, ErrorCode.Timeout, ErrorCode.Internal]);

/**
 * Settles the gateway's reservation with the engine's exact counts, from the service that ran the
 * request, so settlement happens even when the gateway died meanwhile. Never delays a response:
 * the settlement is sent in the background and retried; settling is idempotent in billing. If it
 * never gets through, the gateway's fallback count or the billing sweeper finalizes the hold.
 */
@Injectable()
export class BillingSettler implements OnApplicationShutdown {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly rpc: RpcClient,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  settle(billing: RequestBilling | undefined, requestId: string, outcome: SettleOutcome, usage: SettledUsage | null, executionMs?: number): void {
    if (!billing) return;
    const work = this.deliver({ reservationId: billing.reservationId, source: 'service', outcome, usage, executionMs }, requestId);
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /**
   * The one way a service settles around its engine call: `work` calls `charge(usage)` once the
   * engine has produced (settled `completed` at once, in the background); if `work` throws before
   * that, the hold is released (`failed`, nothing charged). A charged request stays charged if
   * later delivery fails: the engine's work was done.
   */
  async around<T>(billing: RequestBilling | undefined, requestId: string, work: (charge: (usage: SettledUsage) => void) => Promise<T>): Promise<T> {
    const started = Date.now();
    let charged = false;
    const charge = (usage: SettledUsage) => {
      if (charged) return;
      charged = true;
      this.settle(billing, requestId, 'completed', usage, Date.now() - started);
    };
    try {
      const result = await work(charge);
      if (!charged) {
        this.logger.warn({ requestId }, 'a request ended without a charge; its hold is released');
        this.settle(billing, requestId, 'failed', null);
      }
      return result;
    } catch (err) {
      if (!charged) this.settle(billing, requestId, 'failed', null);
      throw err;
    }
  }

  /** Settlements still being delivered (tests, shutdown). */
  async drain(timeoutMs = SHUTDOWN_WAIT_MS): Promise<void> {
    const timeout = new Promise((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([Promise.all(this.pending), timeout]);
  }

  onApplicationShutdown(): Promise<void> {
    return this.drain();
  }

  private async deliver(request: SettleRequest, requestId: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.rpc.send(BILLING.SETTLE, request, { requestId, timeoutMs: ATTEMPT_TIMEOUT_MS });
        return;
      } catch (err) {
        const code = err instanceof DomainError ? err.code : ErrorCode.Internal;
        if (!RETRYABLE.has(code) || attempt >= MAX_ATTEMPTS) {
          this.logger.warn({ requestId, reservationId: request.reservationId, code, attempts: attempt }, 'could not settle with billing; the gateway fallback or the billing sweeper will finalize it');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** (attempt - 1))));
      }
    }
  }
}

/**
 * Prompt tokens of an aborted generation when the engine reports them on its error (`promptTokens`),
 * else null: billing then uses the count it reserved for. Today's engines do not report it yet.
 */
export function promptTokensOnAbort(err: unknown): number | null {
  const value = (err as { promptTokens?: unknown } | null)?.promptTokens;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
