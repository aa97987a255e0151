import path from 'node:path';
import { z } from 'zod';
import { REPO_ROOT } from './repo-root';

export const DEFAULT_PG_URL = 'postgresql://postgres@127.0.0.1:5432';

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL with protocol ${protocols.join(' or ')}`,
  );

export const natsUrl = url(['nats:', 'tls:', 'ws:', 'wss:']).default('nats://127.0.0.1:4222');
export const redisUrl = url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379');
export const postgresUrl = (database: string) => url(['postgres:', 'postgresql:']).default(`${DEFAULT_PG_URL}/${database}`);

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Variables every service and the gateway understand. */
export const commonEnv = {
  NATS_URL: natsUrl,
  LOG_LEVEL: logLevel,
  /** Milliseconds a service has to answer a request/reply call before the caller gives up. */
  RPC_TIMEOUT_MS: positiveInt(30_000),
  /**
   * At SIGTERM, how long requests and streams in flight get to finish after the process stopped
   * taking new ones (docs/operations.md, "Lifecycle"). Keep it under the orchestrator's kill
   * timeout (Kubernetes terminationGracePeriodSeconds).
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  /** Services only: port of their /livez and /readyz probes over HTTP; 0 (default) serves none. */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /**
   * Where a process journals the settlements it owes billing, so that the next process of the
   * same service sends what a crash left unsent (docs/billing.md, "Crash cases"); `off`: no
   * journal. Each replica needs a writable directory that outlives its process (a volume).
   */
  SETTLEMENT_JOURNAL_DIR: z
    .string()
    .min(1)
    .default(path.join(REPO_ROOT, 'tmp', 'settlements')),
};
