import autocannon from 'autocannon';
import { LatencySummary, Samples, summarize } from './percentiles';

export interface Target {
  /** Full URL of the chat-completions endpoint. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /**
   * Headers that change per request, taken in turn across all connections and merged over
   * `headers` (e.g. one API key per account). Load runs only; streaming uses `headers`.
   */
  rotatingHeaders?: Record<string, string>[];
}

export interface LoadResult {
  connections: number;
  durationSeconds: number;
  /** 2xx answers per second over the measured window. */
  rps: number;
  /** Latency of 2xx answers in ms, from autocannon's per-response high-resolution times. */
  latencyMs: LatencySummary;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/**
 * One autocannon run. autocannon's own histogram keeps whole milliseconds, too coarse for
 * sub-millisecond overheads, so every response time is recorded here from its `response` event.
 */
export function runLoad(target: Target, connections: number, durationSeconds: number): Promise<LoadResult> {
  const latencies = new Samples();
  let ok = 0;
  let non2xx = 0;
  const options: autocannon.Options = {
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    duration: durationSeconds,
    pipelining: 1,
    timeout: 10,
  };
  if (target.rotatingHeaders?.length) options.requests = [{ setupRequest: rotate(target.rotatingHeaders) }];
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => {
      if (err) return reject(err);
      resolve({
        connections,
        durationSeconds: result.duration,
        rps: ok / result.duration,
        latencyMs: summarize(latencies.values()),
        ok,
        non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      });
    });
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      if (statusCode >= 200 && statusCode < 300) {
        ok++;
        latencies.push(responseTimeMs);
      } else {
        non2xx++;
      }
    });
  });
}

/** An autocannon `setupRequest` that gives each request the next header set, round-robin. */
export function rotate(headerSets: Record<string, string>[]): (req: autocannon.RequestData) => autocannon.RequestData {
  let next = 0;
  return (req) => {
    const set = headerSets[next];
    next = (next + 1) % headerSets.length;
    return { ...req, headers: { ...req.headers, ...set } };
  };
}
