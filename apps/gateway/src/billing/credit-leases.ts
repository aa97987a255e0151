import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { NatsConnection, Subscription } from 'nats';
import { accountChangedEventSchema, AuthenticatedKey, BILLING, BillingAccountChangedEvent, NanoAmounts } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { decodeJson, NATS_CONNECTION, NestEventPacket, QUICK_CALL_IDLE_MS, retryIfUnavailable, RpcClient } from '@svc/messaging';
import { GATEWAY_LOGGER } from '../logger.token';
import { CreditLease } from './credit-lease';
import { errorMessage } from '@svc/errors';

/** A lease nobody used for this long is closed, so its credit returns to the account. */
export const LEASE_IDLE_MS = 1_000;
/** After billing answered `exact` (too little credit for a block), reserve per request this long before asking again. */
export const EXACT_RECHECK_MS = 1_000;
const OPEN_TIMEOUT_MS = 5_000;
const CLOSE_TIMEOUT_MS = 5_000;
const CLOSE_ATTEMPTS = 3;
const SCAN_MS = 250;
const SHUTDOWN_WAIT_MS = 5_000;

/** The leases of one account (and one limited key, or the account's unlimited keys). */
interface Slot {
  current?: CreditLease;
  /** Opened ahead, while `current` runs low. */
  next?: CreditLease;
  opening?: Promise<CreditLease | null>;
  exactUntil: number;
  /** Bumped when billing says the account changed: a lease granted before that is not used. */
  generation: number;
}

/** A request admitted under a lease: its hold, and the call to make exactly once when it ends. */
export interface LeaseGrant {
  lease: CreditLease;
  hold: bigint;
  /** Balances before this request (see CreditLease.balancesNow). */
  balancesBefore: NanoAmounts;
  end(): void;
}

/**
 * Credit leases of this gateway replica (docs/billing.md, "Leases"): per account (and per key
 * with a consumption limit), a block of credit billing holds for this replica, so admission costs
 * no round trip. A lease is used until it cannot cover a request, its admission time is over or
 * it sat idle; then it is retired, and closed once its last request has ended, returning what was
 * not used. The next lease is opened when the current one is half used. When billing answers
 * `exact` (little credit or a tight limit), `take` returns null and the caller reserves exactly.
 */
@Injectable()
export class CreditLeases implements OnModuleInit, OnApplicationShutdown {
  private readonly slots = new Map<string, Slot>();
  private readonly closing = new Set<Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private sub?: Subscription;
  private stopped = false;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => this.retireStale(Date.now()), SCAN_MS);
    this.timer.unref();
  }

  onModuleInit(): void {
    this.sub = this.nc.subscribe(BILLING.ACCOUNT_CHANGED, {
      callback: (_err, msg) => {
        let packet: NestEventPacket<BillingAccountChangedEvent> | null = null;
        try {
          packet = decodeJson(msg.data);
        } catch {
          // Not JSON: not an event of ours.
        }
        const event = accountChangedEventSchema.safeParse(packet?.data);
        if (event.success) this.revokeAccount(event.data.accountId);
      },
    });
  }

  /**
   * Billing says an operator changed what this account may spend (a lower DIEM stake, another
   * consumption order): no request is admitted under its current leases any more, including one
   * being opened now. They close as their requests end; the next request opens a fresh one.
   */
  revokeAccount(accountId: string): void {
    for (const [slotKey, slot] of this.slots) {
      if (slotKey !== accountId && !slotKey.startsWith(`${accountId}:`)) continue;
      slot.generation++;
      slot.exactUntil = 0;
      for (const lease of [slot.current, slot.next]) if (lease) this.retire(lease);
      slot.current = slot.next = undefined;
    }
  }

  /** A hold of `cost` (both currencies, nano) under a lease of this key's slot, or null: reserve exactly. */
  async take(key: AuthenticatedKey, cost: { usd: bigint; diem: bigint }, requestId: string): Promise<LeaseGrant | null> {
    if (this.stopped) return null;
    const { usd, diem } = key.consumptionLimits;
    const limited = usd !== null || diem !== null;
    // A key's changed limits get a slot of their own: leases taken under the old ones are not used.
    const slotKey = limited ? `${key.accountId}:${key.id}:${usd}:${diem}:${key.limitPeriod}` : key.accountId;
    let slot = this.slots.get(slotKey);
    if (!slot) this.slots.set(slotKey, (slot = { exactUntil: 0, generation: 0 }));
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = Date.now();
      if (slot.exactUntil > now) return null;
      const lease = slot.current;
      if (lease) {
        const hold = lease.currency === 'USD' ? cost.usd : cost.diem;
        const balancesBefore = lease.balancesNow();
        if (lease.take(hold, now)) {
          if (lease.low && !slot.next && !slot.opening) this.prefetch(slot, key, limited, cost, requestId);
          return { lease, hold, balancesBefore, end: () => this.end(lease) };
        }
        this.retire(lease);
        slot.current = slot.next;
        slot.next = undefined;
        if (slot.current) continue;
      }
      slot.opening ??= this.open(slot, key, limited, cost, requestId);
      if (!(await slot.opening)) return null;
    }
    return null;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.sub?.unsubscribe();
    clearInterval(this.timer);
    for (const slot of this.slots.values()) {
      if (slot.current) this.retire(slot.current);
      if (slot.next) this.retire(slot.next);
    }
    this.slots.clear();
    const timeout = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref());
    await Promise.race([Promise.all(this.closing), timeout]);
  }

  private prefetch(slot: Slot, key: AuthenticatedKey, limited: boolean, cost: { usd: bigint; diem: bigint }, requestId: string): void {
    slot.opening = this.open(slot, key, limited, cost, requestId);
    // A failed prefetch is not a request's failure: the next take tries again.
    slot.opening.catch(() => undefined);
  }

  /** Every lease billing grants ends up in its slot or retired (then closed): none is forgotten. */
  private place(slot: Slot, lease: CreditLease): void {
    if (this.stopped) this.retire(lease);
    else if (!slot.current) slot.current = lease;
    else if (!slot.next) slot.next = lease;
    else this.retire(lease);
  }

  private open(slot: Slot, key: AuthenticatedKey, limited: boolean, cost: { usd: bigint; diem: bigint }, requestId: string): Promise<CreditLease | null> {
    const generation = slot.generation;
    const request = {
      leaseId: randomUUID(),
      accountId: key.accountId,
      apiKeyId: limited ? key.id : null,
      keyLimits: limited
        ? { usd: key.consumptionLimits.usd, diem: key.consumptionLimits.diem, period: key.limitPeriod }
        : { usd: null, diem: null, period: key.limitPeriod },
      unitNano: { usd: cost.usd.toString(), diem: cost.diem.toString() },
    };
    const opening = retryIfUnavailable(() =>
      this.rpc.send(BILLING.LEASE_OPEN, request, { requestId, timeoutMs: OPEN_TIMEOUT_MS, idleTimeoutMs: QUICK_CALL_IDLE_MS }),
    )
      .then((reply) => {
        if (reply.outcome !== 'granted') {
          slot.exactUntil = Date.now() + EXACT_RECHECK_MS;
          return null;
        }
        const lease = new CreditLease(reply.leaseId, reply.currency, BigInt(reply.grantedNano), reply.balancesBefore, Date.parse(reply.admitUntil));
        if (slot.generation !== generation) {
          // Granted before the account changed: give it back, and reserve this request exactly.
          this.retire(lease);
          return null;
        }
        this.place(slot, lease);
        return lease;
      })
      .finally(() => {
        if (slot.opening === opening) slot.opening = undefined;
      });
    return opening;
  }

  private end(lease: CreditLease): void {
    if (lease.end()) this.close(lease);
  }

  /** No more admissions under it; closed now if idle, else when its last request ends. */
  private retire(lease: CreditLease): void {
    if (lease.retired) return;
    lease.retired = true;
    if (lease.inFlight === 0) this.close(lease);
  }

  private retireStale(now: number): void {
    for (const [slotKey, slot] of this.slots) {
      for (const lease of [slot.current, slot.next]) {
        if (lease && (now >= lease.admitUntil || now - lease.lastUsedAt >= LEASE_IDLE_MS)) {
          this.retire(lease);
          if (slot.current === lease) slot.current = undefined;
          if (slot.next === lease) slot.next = undefined;
        }
      }
      if (!slot.current && !slot.next && !slot.opening && slot.exactUntil <= now) this.slots.delete(slotKey);
    }
  }

  private close(lease: CreditLease): void {
    const work = this.sendClose(lease);
    this.closing.add(work);
    void work.finally(() => this.closing.delete(work));
  }

  private async sendClose(lease: CreditLease): Promise<void> {
    const request = { leaseId: lease.id, admitted: lease.admitted, admittedNano: lease.admittedNano.toString() };
    for (let attempt = 1; attempt <= CLOSE_ATTEMPTS; attempt++) {
      try {
        await this.rpc.send(BILLING.LEASE_CLOSE, request, { timeoutMs: CLOSE_TIMEOUT_MS });
        return;
      } catch (err) {
        if (attempt === CLOSE_ATTEMPTS) {
          // Billing returns it anyway once the lease expires: later, never lost.
          this.logger.warn({ leaseId: lease.id, err: errorMessage(err) }, 'could not close a credit lease; billing returns it when it expires');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }
}
