import { collectDefaultMetrics, Gauge, Histogram, register } from 'prom-client';

/**
 * A service's Prometheus metrics (docs/operations.md, "Metrics"), served at `GET /metrics` on its
 * HEALTH_PORT. prom-client's default registry: a service is one process, and the helpers below
 * register each metric once, so several engines (or a test running a service in-process twice)
 * add sources to the same series instead of colliding. Labels: model ids, queue names and states.
 */
export const serviceMetricsRegistry = register;

interface Reading {
  labels: Record<string, string>;
  value: number;
}
/**
 * How often the event-loop lag monitor samples (prom-client's default is 10 ms). Each sample is a
 * libuv timer that wakes the process: 100 wake-ups a second, idle or not, and at one connection
 * more wake-ups than the requests themselves cause. At 100 ms a lag worth alerting on is still
 * seen (the histogram records how late each sample ran); only sub-100 ms jitter is sampled less.
 */
export const LAG_MONITOR_RESOLUTION_MS = 100;

type Source = () => Reading[] | Promise<Reading[]>;

const sources = new Map<string, Set<Source>>();
let defaultsStarted = false;

/**
 * Node's own metrics (event-loop lag, heap, GC, CPU) as `svc_<service>_...`; once per process.
 * Called when the service serves its metrics (HEALTH_PORT set): until then timers are no-ops.
 */
export function collectServiceDefaults(service: string): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ register, prefix: `svc_${service}_`, eventLoopMonitoringPrecision: LAG_MONITOR_RESOLUTION_MS });
}

/** Adds `read` to the gauge `name` (created at the first call): sampled at each scrape. Returns its removal. */
export function gaugeSource(name: string, help: string, labelNames: string[], read: Source): () => void {
  let set = sources.get(name);
  if (!set) {
    const mine = (set = new Set());
    sources.set(name, mine);
    new Gauge({
      name,
      help,
      labelNames,
      async collect() {
        this.reset();
        for (const source of mine) for (const { labels, value } of await source()) this.set(labels, value);
      },
    });
  }
  set.add(read);
  return () => set.delete(read);
}

/** An engine's load, by model: requests running (slots in use) and waiting. */
export function watchEngine(model: string, stats: () => { running: number; queued: number }): () => void {
  const off = [
    gaugeSource('svc_engine_active_slots', 'Requests an embedded engine is running now, by model.', ['model'], () => [
      { labels: { model }, value: stats().running },
    ]),
    gaugeSource('svc_engine_queue_depth', 'Requests waiting for an embedded engine slot, by model.', ['model'], () => [
      { labels: { model }, value: stats().queued },
    ]),
  ];
  return () => off.forEach((f) => f());
}

const ENGINE_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
let engineSeconds: Histogram | undefined;

const NOT_TIMED = () => undefined;

/** Starts timing one engine request (queue wait included); call the result when it ends. */
export function timeEngineRequest(model: string): () => void {
  if (!defaultsStarted) return NOT_TIMED;
  engineSeconds ??=
    (register.getSingleMetric('svc_engine_request_duration_seconds') as Histogram | undefined) ??
    new Histogram({
      name: 'svc_engine_request_duration_seconds',
      help: 'Time per embedded engine request, from its arrival (queue wait included) to its end, by model.',
      labelNames: ['model'],
      buckets: ENGINE_BUCKETS,
    });
  return engineSeconds.startTimer({ model });
}
