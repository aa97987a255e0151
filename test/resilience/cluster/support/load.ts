import { chatRequest } from '../../support/chat-request';
import { recovery, Recovery, Sample, startTraffic } from '../../support/traffic';
import { BALANCER, sleep } from './cluster';

/** Clients in the loop, half of them streaming, plus a probe every 200 ms. */
export const CONCURRENCY = 4;
export const PROBE_EVERY_MS = 200;

/**
 * Chat traffic through the balancer for 1.5 s, then `fault()`, then `afterMs` more: the samples,
 * the fault's time on their clock (when `fault` resolves with a time on `now`'s clock, that one:
 * the moment the fault took effect), and how traffic came through it (support/traffic.ts).
 */
export async function underLoad(apiKey: string, fault: (now: () => number) => Promise<number | void>, afterMs = 6_000) {
  const traffic = startTraffic({
    concurrency: CONCURRENCY,
    probeEveryMs: PROBE_EVERY_MS,
    clientTimeoutMs: 30_000,
    request: (signal, worker) => chatRequest(BALANCER, apiKey, worker % 2 !== 0)(signal),
  });
  await sleep(1_500);
  const startedAt = traffic.now();
  const at = (await fault(traffic.now)) ?? startedAt;
  const faultDoneAt = traffic.now();
  await sleep(afterMs);
  const run = await traffic.stop();
  return { run, at, faultDoneAt, result: recovery(run, at) };
}

/** Requests sent more than `marginMs` after the fault that did not get a complete answer. */
export const failedAfter = (run: Sample[], at: number, marginMs = 100) => run.filter((s) => s.start > at + marginMs && (s.status !== 200 || !s.complete));

/** Requests in flight at the fault that did not get a complete answer. */
export const failedInFlight = (run: Sample[], at: number) => run.filter((s) => s.start <= at && s.end >= at && (s.status !== 200 || !s.complete));

export const describeFailure = (s: Sample) => `${s.status} ${s.complete ? '' : 'incomplete'} ${s.detail ?? ''}`.trim();

/** The figures every kill test records: requests, failures by when they were sent, how fast it recovered. */
export function killFigures(run: Sample[], at: number, result: Recovery) {
  const late = failedAfter(run, at);
  const inFlight = failedInFlight(run, at);
  return {
    late,
    inFlight,
    figures: {
      requests: run.length,
      failed: result.failed,
      failedInFlight: inFlight.length,
      failedAfterKill: late.length,
      failedSentWithin100msOfKill: result.failed - inFlight.length - late.length,
      failures: result.failures,
      failureDetails: [...inFlight, ...late].map(describeFailure).slice(0, 6),
      slowestFailureMs: result.slowestFailureMs,
      recoveredMs: result.recoveredMs,
    },
  };
}
