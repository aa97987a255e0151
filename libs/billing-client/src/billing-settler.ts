import { Inject, Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { BILLING, RequestBilling, SETTLE_BATCH_MAX, SettledUsage, SettleOutcome, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { RpcClient, SERVICE_LOGGER } from '@svc/messaging';
import { SETTLEMENT_JOURNAL, SettlementJournal } from './settlement-journal';

const ATTEMPT_TIMEOUT_MS = 5_000;
/** Backoff 100 ms doubling to 5 s: about 20 s of retries, inside billing's settle grace (30 s). */
const MAX_ATTEMPTS = 8;
const SHUTDOWN_WAIT_MS = 5_000;
const RETRYABLE = new Set<ErrorCode>([ErrorCode.ServiceUnavailable, ErrorCode.Timeout, ErrorCode.Internal]);
/**
 * Settlements wait at most this long (SETTLE_WINDOW_MS) for others to share their message and
 * transaction. A window by time, not only by what is in flight: at one connection each request
 * would otherwise cost billing one message and one Postgres transaction of its own. The journal
 * makes waiting safe (a settlement is on disk before it is queued); what it delays is only when
 * the charge shows in billing's balance, by at most the window.
 */
export const DEFAULT_SETTLE_WINDOW_MS = 50;
/** Nest token of the window (ms), from the service's config (`settleWindowProvider`). */
export const SETTLE_WINDOW = Symbol('SETTLE_WINDOW');
export const settleWindowProvider = (windowMs: number): { provide: symbol; useValue: number } => ({ provide: SETTLE_WINDOW, useValue: windowMs });
/** A batch leaves at once when it has this many settlements. */
const FLUSH_AT = SETTLE_BATCH_MAX / 2;
/**
 * After the quick retries, a settlement billing could not take (a longer outage) waits in the
 * backlog and is tried again every BACKLOG_RETRY_MS for up to BACKLOG_MAX_AGE_MS: billing still
 * charges a late settlement after its sweeper released the hold (docs/billing.md), so the
 * request is billed once billing is back instead of going unbilled.
 */
export const BACKLOG_RETRY_MS = 10_000;
export const BACKLOG_MAX_AGE_MS = 60 * 60_000;
/** Bound on the backlog's memory (a settlement is a few hundred bytes); past it the oldest go. */
const BACKLOG_MAX = 100_000;

interface Queued {
  request: SettleRequest;
  requestId: string;
  /** When it first failed to get through (backlog entries). */
  since?: number;
  /** Its entry in the settlement journal. */
  journalId?: number;
}

/**
 * Settles the gateway's reservation with the engine's exact counts, from the service that ran the
 * request, so settlement happens even when the gateway died meanwhile. Never delays a response:
 * settlements are queued, sent in batches (one message and one billing transaction for everything
 * settled within the window, SETTLE_WINDOW_MS) and retried (quickly for about 20 s, then from a backlog for up
 * to an hour); settling is idempotent in billing. Each settlement is written to the service's
 * SettlementJournal before it is queued, so one the process dies owing is sent by the next process
 * of the service (onModuleInit). If one never gets through, the gateway's fallback count or the
 * billing sweeper finalizes the hold.
 */
@Injectable()
export class BillingSettler implements OnModuleInit, OnApplicationShutdown {
  private readonly pending = new Set<Promise<void>>();
  private queue: Queued[] = [];
  private timer: NodeJS.Timeout | null = null;
  private backlog: Queued[] = [];
  private backlogTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Optional() @Inject(SETTLEMENT_JOURNAL) private readonly journal: SettlementJournal | null = null,
    @Optional() @Inject(SETTLE_WINDOW) private readonly windowMs: number = DEFAULT_SETTLE_WINDOW_MS,
  ) {}

  /** Sends again what stopped processes of this service still owed billing (their journals). */
  onModuleInit(): void {
    if (!this.journal) return;
    for (const { request, requestId } of this.journal.claimOrphans()) this.send(request, requestId);
    this.journal.releaseClaimed();
  }

  settle(billing: RequestBilling | undefined, requestId: string, outcome: SettleOutcome, usage: SettledUsage | null, executionMs?: number): void {
    if (!billing) return;
    this.send(
      { reservationId: billing.reservationId, source: 'service', outcome, usage, executionMs, ...(billing.lease ? { lease: billing.lease } : {}) },
      requestId,
    );
  }

  /** Queues any settlement (the gateway's releases of leased requests use it too). */
  send(request: SettleRequest, requestId: string): void {
    this.queue.push({ request, requestId, journalId: this.journal?.append({ request, requestId }) });
    if (this.queue.length >= FLUSH_AT || this.windowMs === 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  /**
   * The one way a service settles around its engine call: `work` calls `charge(usage)` once the
   * engine has produced (settled `completed` at once, in the background); if `work` throws before
   * that, the hold is released (`failed`, nothing charged). A charged request stays charged if
   * later delivery fails: the engine's work was done. `started` (ms) is when the request began
   * here: the settled execution time counts from it, and so can the service's log line.
   */
  async around<T>(
    billing: RequestBilling | undefined,
    requestId: string,
    work: (charge: (usage: SettledUsage) => void, started: number) => Promise<T>,
  ): Promise<T> {
    const started = Date.now();
    let charged = false;
    const charge = (usage: SettledUsage) => {
      if (charged) return;
      charged = true;
      this.settle(billing, requestId, 'completed', usage, Date.now() - started);
    };
    try {
      const result = await work(charge, started);
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

  /** Settlements waiting in the backlog for billing to come back. */
  get backlogSize(): number {
    return this.backlog.length;
  }

  /** Sends what is queued, then waits for settlements still being delivered (tests, shutdown). */
  async drain(timeoutMs = SHUTDOWN_WAIT_MS): Promise<void> {
    this.flush();
    const timeout = new Promise((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([Promise.all(this.pending), timeout]);
  }

  /** At shutdown: one last try of the backlog, then what is still in it is logged as unbilled. */
  async onApplicationShutdown(): Promise<void> {
    this.retryBacklog();
    await this.drain();
    if (this.backlogTimer) clearTimeout(this.backlogTimer);
    if (this.backlog.length > 0)
      this.logger.error(
        { reservations: this.backlog.map((q) => q.request.reservationId), journal: this.journal !== null },
        this.journal
          ? 'stopping with settlements billing never took; the settlement journal keeps them for the next process of this service'
          : 'stopping with settlements billing never took; the sweeper finalizes their holds (those requests go unbilled)',
      );
    this.journal?.close();
  }

  /** Billing took these (or refused them for good, or they were given up on): the journal owes them no more. */
  private done(batch: Queued[]): void {
    if (this.journal) this.journal.delivered(batch.flatMap((q) => (q.journalId === undefined ? [] : [q.journalId])));
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    const work = this.deliver(batch);
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async deliver(batch: Queued[], attempts = MAX_ATTEMPTS): Promise<void> {
    const items = batch.map((q) => q.request);
    const send = () => this.rpc.send(BILLING.SETTLE_BATCH, { items }, { requestId: batch[0].requestId, timeoutMs: ATTEMPT_TIMEOUT_MS });
    const code = await this.attempt(send, attempts);
    if (code === null) return this.done(batch);
    if (batch.length > 1 && !RETRYABLE.has(code)) {
      // One settlement billing refuses must not take the others down with it: send them one by one.
      await Promise.all(batch.map((q) => this.deliver([q], 1)));
      return;
    }
    if (RETRYABLE.has(code)) return this.defer(batch, code);
    this.done(batch);
    this.logger.warn(
      { requestIds: batch.map((q) => q.requestId), reservations: items.map((i) => i.reservationId), code },
      'billing refused a settlement; the gateway fallback or the billing sweeper will finalize it',
    );
  }

  /** Billing is unreachable: the batch waits in the backlog (see BACKLOG_RETRY_MS). */
  private defer(batch: Queued[], code: ErrorCode): void {
    const now = Date.now();
    const expired = batch.filter((q) => now - (q.since ?? now) >= BACKLOG_MAX_AGE_MS);
    if (expired.length > 0) {
      this.logger.error({ reservations: expired.map((q) => q.request.reservationId), code }, 'gave up settling after an hour; those requests go unbilled');
      this.done(expired);
    }
    const kept = batch.filter((q) => now - (q.since ?? now) < BACKLOG_MAX_AGE_MS).map((q) => ({ ...q, since: q.since ?? now }));
    if (kept.length === 0) return;
    if (!batch.some((q) => q.since !== undefined))
      this.logger.warn({ reservations: kept.map((q) => q.request.reservationId), code }, 'billing is unreachable; settlements wait in the backlog');
    this.backlog.push(...kept);
    const over = this.backlog.length - BACKLOG_MAX;
    if (over > 0) {
      const dropped = this.backlog.splice(0, over);
      this.logger.error({ reservations: dropped.map((q) => q.request.reservationId) }, 'settlement backlog full; the oldest go unbilled');
      this.done(dropped);
    }
    this.backlogTimer ??= setTimeout(() => this.retryBacklog(), BACKLOG_RETRY_MS);
    this.backlogTimer.unref();
  }

  /** One try of everything in the backlog, in batches; what fails again goes back (defer). */
  private retryBacklog(): void {
    if (this.backlogTimer) clearTimeout(this.backlogTimer);
    this.backlogTimer = null;
    const waiting = this.backlog;
    this.backlog = [];
    for (let i = 0; i < waiting.length; i += SETTLE_BATCH_MAX) {
      const work = this.deliver(waiting.slice(i, i + SETTLE_BATCH_MAX), 1);
      this.pending.add(work);
      void work.finally(() => this.pending.delete(work));
    }
  }

  /** Retries transient failures with backoff; the error code it gave up on, or null when it got through. */
  private async attempt(call: () => Promise<unknown>, attempts: number): Promise<ErrorCode | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        await call();
        return null;
      } catch (err) {
        const code = err instanceof DomainError ? err.code : ErrorCode.Internal;
        if (!RETRYABLE.has(code) || attempt >= attempts) return code;
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
