import autocannon from 'autocannon';
import { LatencySummary, Samples, summarize } from './percentiles';

export interface Target {
  /** Full URL of the chat-completions endpoint. */
  url: string;
  headers: Record<string, string>;
  body: string;
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
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: target.url, method: 'POST', headers: target.headers, body: target.body, connections, duration: durationSeconds, pipelining: 1, timeout: 10 },
      (err, result) => {
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
      },
    );
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
