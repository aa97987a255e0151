/** The part of a pino logger the engine uses. Log ids, counts and timings only. */
export interface EngineLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface EmbeddedLlamaEngineOptions {
  modelPath: string;
  /** Tokens per sequence; default min(trained context, 4096). */
  contextSize?: number;
  /**
   * Generations running at once, as parallel sequences of one llama context (default 2: on 2 cores
   * that gave +40% aggregate tokens/s on the tiny model, equal on a 90M one, and short requests
   * are not stuck behind a long one). Each sequence has its own KV cache of `contextSize`.
   */
  maxParallel?: number;
  /** Generations waiting for a free sequence; more are rejected at once. */
  maxQueue?: number;
  /** llama.cpp threads; default: all cores but one (2 threads on 2 cores measured far slower). */
  threads?: number;
  logger?: EngineLogger;
  /** Restart delay after a crash: doubles per consecutive crash, from `min` up to `max` ms. */
  restartBackoffMs?: { min: number; max: number };
}

export const EMBEDDED_ENGINE_DEFAULTS = { maxParallel: 2, maxQueue: 16, restartBackoffMs: { min: 250, max: 10_000 } };
