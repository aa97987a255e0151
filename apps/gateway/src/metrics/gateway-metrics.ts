import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LAG_MONITOR_RESOLUTION_MS, RpcObserver, RpcOutcome } from '@svc/messaging';

/** Seconds: from a cached answer (sub-millisecond) to a long generation. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const RPC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

export type RefusalReason = 'insufficient_balance' | 'rate_limited' | 'abuse_blocked' | 'body_budget';

interface ModelSeries {
  tokensIn: Counter.Internal;
  tokensOut: Counter.Internal;
  heldUsd: Counter.Internal;
  heldDiem: Counter.Internal;
  chargedUsd: Counter.Internal;
  chargedDiem: Counter.Internal;
}

interface RequestSeries {
  count: Counter.Internal;
  duration: Histogram.Internal<string>;
}

/**
 * The gateway's Prometheus metrics (docs/operations.md, "Metrics"), in a registry of its own (not
 * prom-client's global one, so tests and several apps in one process never collide). Labels carry
 * route patterns, methods, statuses, catalog model ids and fixed words only: never a raw URL, a
 * key, an account or anything of a prompt. Label children are cached in nested maps keyed by those
 * (already interned) strings and numbers, so a request costs lookups and two observe calls.
 */
export class GatewayMetrics implements RpcObserver {
  readonly enabled: boolean = true;
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'svc_gateway_requests_total',
    help: 'HTTP requests answered, by route pattern, method, model id ("" when none) and status.',
    labelNames: ['route', 'method', 'model', 'status'],
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'svc_gateway_request_duration_seconds',
    help: 'Time from a request arriving to its response ending (a stream: its last byte), by route pattern, method, model and status.',
    labelNames: ['route', 'method', 'model', 'status'],
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'svc_gateway_tokens_total',
    help: 'Tokens of settled requests by model and direction (in: prompt or embedding input, out: completion).',
    labelNames: ['model', 'direction'],
    registers: [this.registry],
  });
  private readonly held = new Counter({
    name: 'svc_gateway_credit_held_total',
    help: 'Credit held at admission (the worst-case price), in units of the currency (USD or DIEM), by model.',
    labelNames: ['model', 'currency'],
    registers: [this.registry],
  });
  private readonly charged = new Counter({
    name: 'svc_gateway_credit_charged_total',
    help: "Credit charged for token-priced text requests at the gateway's count, in units of the currency, by model (the billing ledger is authoritative).",
    labelNames: ['model', 'currency'],
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'svc_gateway_refusals_total',
    help: 'Requests refused before any model ran: insufficient_balance (402), rate_limited (429), abuse_blocked (429 of the abuse block), body_budget (503: request bodies in flight at BODY_BUDGET_BYTES).',
    labelNames: ['reason', 'model'],
    registers: [this.registry],
  });
  private readonly exactAdmissions = new Counter({
    name: 'svc_gateway_exact_admissions_total',
    help: 'Requests whose cheap worst case did not fit the credit left and were counted exactly (one more round trip), by model.',
    labelNames: ['model'],
    registers: [this.registry],
  });
  private readonly rpc = new Histogram({
    name: 'svc_gateway_nats_rpc_duration_seconds',
    help: 'Round-trip time of NATS request/reply calls to the services, by subject and outcome (ok, error, timeout, unavailable).',
    labelNames: ['subject', 'outcome'],
    buckets: RPC_BUCKETS,
    registers: [this.registry],
  });
  private readonly models = new Map<string, ModelSeries>();
  private readonly series = new Map<string, Map<string, Map<string, Map<number, RequestSeries>>>>();
  private readonly rpcSeries = new Map<string, Map<RpcOutcome, Histogram.Internal<string>>>();

  /** Node's own (event-loop lag, heap, GC, CPU), sampled at scrape time and by a lag monitor. */
  collectDefaults(): void {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_gateway_', eventLoopMonitoringPrecision: LAG_MONITOR_RESOLUTION_MS });
  }

  /** The bytes request bodies in flight hold (http/body-budget.ts), read at scrape time. */
  watchBodyBudget(budget: { readonly inUse: number }): void {
    new Gauge({
      name: 'svc_gateway_request_body_bytes_held',
      help: 'Bytes of request bodies in flight held against BODY_BUDGET_BYTES (declared Content-Length, or what arrived of a chunked body).',
      registers: [this.registry],
      collect() {
        this.set(budget.inUse);
      },
    });
  }

  /** One answered request (the onResponse hook). */
  request(route: string, method: string, model: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let byModel = byMethod.get(method);
    if (!byModel) byMethod.set(method, (byModel = new Map()));
    let byStatus = byModel.get(model);
    if (!byStatus) byModel.set(model, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) {
      const labels = { route, method, model, status: String(status) };
      byStatus.set(status, (s = { count: this.requests.labels(labels), duration: this.duration.labels(labels) }));
    }
    s.count.inc();
    s.duration.observe(seconds);
  }

  usage(model: string, promptTokens: number, completionTokens: number): void {
    const s = this.ofModel(model);
    if (promptTokens > 0) s.tokensIn.inc(promptTokens);
    if (completionTokens > 0) s.tokensOut.inc(completionTokens);
  }

  /** `nano`: billionths of the currency unit. */
  creditHeld(model: string, currency: 'USD' | 'DIEM', nano: bigint): void {
    if (nano > 0n) (currency === 'USD' ? this.ofModel(model).heldUsd : this.ofModel(model).heldDiem).inc(Number(nano) / 1e9);
  }

  /** The public `cost` of a response: one of the two is non-zero, in the currency it was charged in. */
  creditCharged(model: string, cost: { usd: number; diem: number }): void {
    const s = this.ofModel(model);
    if (cost.usd > 0) s.chargedUsd.inc(cost.usd);
    if (cost.diem > 0) s.chargedDiem.inc(cost.diem);
  }

  refused(reason: RefusalReason, model = ''): void {
    this.refusals.inc({ reason, model });
  }

  /** A request counted exactly at the margin (docs/billing.md, "Exact at the margin"). */
  exactAdmission(model: string): void {
    this.exactAdmissions.inc({ model });
  }

  private ofModel(model: string): ModelSeries {
    let s = this.models.get(model);
    if (!s) {
      s = {
        tokensIn: this.tokens.labels({ model, direction: 'in' }),
        tokensOut: this.tokens.labels({ model, direction: 'out' }),
        heldUsd: this.held.labels({ model, currency: 'USD' }),
        heldDiem: this.held.labels({ model, currency: 'DIEM' }),
        chargedUsd: this.charged.labels({ model, currency: 'USD' }),
        chargedDiem: this.charged.labels({ model, currency: 'DIEM' }),
      };
      this.models.set(model, s);
    }
    return s;
  }

  observe(subject: string, seconds: number, outcome: RpcOutcome): void {
    let bySubject = this.rpcSeries.get(subject);
    if (!bySubject) this.rpcSeries.set(subject, (bySubject = new Map()));
    let h = bySubject.get(outcome);
    if (!h) bySubject.set(outcome, (h = this.rpc.labels({ subject, outcome })));
    h.observe(seconds);
  }
}

/** Metrics off (METRICS_ENABLED=false): the same calls, doing nothing; no /metrics, no hook, no RPC observer. */
export class NoGatewayMetrics extends GatewayMetrics {
  override readonly enabled = false;
  override request(): void {}
  override usage(): void {}
  override creditHeld(): void {}
  override creditCharged(): void {}
  override refused(): void {}
  override exactAdmission(): void {}
  override watchBodyBudget(): void {}
  override observe(): void {}
}

/** For code built without the module (unit tests): records nothing. */
export const NO_METRICS: GatewayMetrics = new NoGatewayMetrics();
