import os from 'node:os';
import pLimit, { Limit } from 'p-limit';

/**
 * How many child processes the audio service runs at once, per kind: `media` (ffprobe and ffmpeg:
 * probing, decoding, short) and `engine` (a recogniser over the whole file, long), so that long
 * transcriptions never hold up the probes of the requests behind them.
 *
 * Unbounded, 200 uploads at once meant 200 decoders on a 2-core machine: each got a sliver of the
 * CPU, and so did the service's own event loop, whose heartbeats then stopped for seconds; the
 * gateway took the silence for a dead service and answered 503. Waiting for a slot costs the
 * event loop nothing: a request waits, within its own deadline, while the service keeps beating.
 */
export type ProcessKind = 'media' | 'engine';

const pools: Record<ProcessKind, Limit> = { media: pLimit(defaultConcurrency()), engine: pLimit(defaultConcurrency()) };

export function defaultConcurrency(): number {
  return Math.max(2, os.availableParallelism());
}

/** At boot, from AUDIO_PROCESS_CONCURRENCY. */
export function setProcessConcurrency(perKind: number): void {
  pools.media = pLimit(perKind);
  pools.engine = pLimit(perKind);
}

/** Runs `start` (which spawns a process and settles when it has exited) once a slot of `kind` is free. */
export function inProcessSlot<T>(kind: ProcessKind, start: () => Promise<T>): Promise<T> {
  return pools[kind](start);
}

/** Processes of `kind` waiting for a slot (for tests and diagnostics). */
export function waitingFor(kind: ProcessKind): number {
  return pools[kind].pendingCount;
}
