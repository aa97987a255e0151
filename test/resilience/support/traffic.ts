import { performance } from 'node:perf_hooks';
import { errorMessage } from '@svc/errors';

/** One request of a traffic loop: when it started and ended (ms on the loop's clock) and how it ended. */
export interface Sample {
  start: number;
  end: number;
  /** The HTTP status, or 0 when no answer came (connection error, client timeout). */
  status: number;
  /** For streams: whether the body ended with `data: [DONE]` (a complete answer). */
  complete: boolean;
  /** The answer's request id (CF-RAY), to find its reservation in the ledger. */
  requestId?: string | null;
  /** The start of a failed answer's body, to say why. */
  detail?: string;
}

export interface TrafficOptions {
  /** Requests in flight at any time. */
  concurrency: number;
  /** One request of worker `worker`; resolves with how it ended. */
  request: (signal: AbortSignal, worker: number) => Promise<Omit<Sample, 'start' | 'end'>>;
  /** The client gives up on a request after this long (status 0). */
  clientTimeoutMs?: number;
  /** Pause between one worker's requests. */
  pauseMs?: number;
  /**
   * Also send one request every this many ms whatever the workers are doing (worker index -1), so
   * recovery is seen as soon as it happens even while every worker waits on a failed request.
   */
  probeEveryMs?: number;
}

export interface Traffic {
  /** Milliseconds since the loop started (the samples' clock). */
  now(): number;
  /** Stops issuing, waits for those in flight, returns every sample. */
  stop(): Promise<Sample[]>;
}

/** Closed-loop traffic: `concurrency` workers, each sending its next request when the last one ends. */
export function startTraffic(options: TrafficOptions): Traffic {
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const samples: Sample[] = [];
  let running = true;
  const one = async (index: number) => {
    const start = now();
    let outcome: Omit<Sample, 'start' | 'end'> = { status: 0, complete: false };
    try {
      outcome = await options.request(AbortSignal.timeout(options.clientTimeoutMs ?? 30_000), index);
    } catch (err) {
      // no answer: status 0, and why (a reset, a timeout)
      const cause = (err as { cause?: unknown }).cause ?? err;
      outcome = { status: 0, complete: false, detail: errorMessage(cause) };
    }
    samples.push({ start, end: now(), ...outcome });
  };
  const worker = async (index: number) => {
    while (running) {
      await one(index);
      if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    }
  };
  const workers = Array.from({ length: options.concurrency }, (_, i) => worker(i));
  const probes: Promise<void>[] = [];
  const prober = options.probeEveryMs ? setInterval(() => probes.push(one(-1)), options.probeEveryMs) : undefined;
  return {
    now,
    stop: async () => {
      running = false;
      clearInterval(prober);
      await Promise.all([...workers, ...probes]);
      return samples.sort((a, b) => a.start - b.start);
    },
  };
}

export interface Recovery {
  /** Requests that failed (not 200, or a stream without its end) and were in flight at the fault or sent after it. */
  failed: number;
  /** Of those, the ones that were already in flight when the fault came. */
  failedInFlight: number;
  /** From `readyAt` (the fault, or the moment the faulty part was back) until the first request sent after it succeeded; null if none did. */
  recoveredMs: number | null;
  /** The longest any failed request waited for its answer. */
  slowestFailureMs: number;
  /** Requests that succeeded after the fault. */
  succeeded: number;
  /** How the failures ended: status (0: no answer) and "incomplete" for a 200 cut short, with counts. */
  failures: Record<string, number>;
}

/** How traffic came through a fault at `faultAt`, measuring recovery from `readyAt` (default: the fault). */
export function recovery(samples: Sample[], faultAt: number, readyAt = faultAt): Recovery {
  const affected = samples.filter((s) => s.end >= faultAt);
  const failures = affected.filter((s) => s.status !== 200 || !s.complete);
  const firstGood = affected.filter((s) => s.start >= readyAt && s.status === 200 && s.complete).sort((a, b) => a.end - b.end)[0];
  return {
    failed: failures.length,
    failedInFlight: failures.filter((s) => s.start < faultAt).length,
    recoveredMs: firstGood ? Math.round(firstGood.end - readyAt) : null,
    slowestFailureMs: Math.round(Math.max(0, ...failures.map((s) => s.end - s.start))),
    succeeded: affected.filter((s) => s.status === 200 && s.complete).length,
    failures: failures.reduce<Record<string, number>>((acc, s) => {
      const key = s.status === 200 ? 'incomplete' : String(s.status);
      acc[key] = (acc[key] ?? 0) + 1;
      return acc;
    }, {}),
  };
}
