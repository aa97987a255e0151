import path from 'node:path';
import { z } from 'zod';
import { REPO_ROOT } from './repo-root';

export const DEFAULT_PG_URL = 'postgresql://postgres@127.0.0.1:5432';

function isUrlOf(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const url = (protocols: string[]) => z.string().refine((v) => isUrlOf(v, protocols), `must be a URL with protocol ${protocols.join(' or ')}`);

const NATS_PROTOCOLS = ['nats:', 'tls:', 'ws:', 'wss:'];

/**
 * One NATS server or a seed list of a cluster's servers, comma-separated, as nats.js takes it
 * (`nats://127.0.0.1:4301,nats://127.0.0.1:4302`): every entry must be a URL of its own. The
 * client learns the cluster's other servers from the one it reaches (docs/cluster.md).
 */
export const natsUrl = z
  .string()
  .superRefine((value, ctx) => {
    const entries = value.split(',').map((entry) => entry.trim());
    entries.forEach((entry, index) => {
      if (isUrlOf(entry, NATS_PROTOCOLS)) return;
      const which = entries.length > 1 ? `entry ${index + 1} ("${entry}") ` : '';
      ctx.addIssue({ code: 'custom', message: `${which}must be a URL with protocol ${NATS_PROTOCOLS.join(' or ')}` });
    });
  })
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .join(','),
  )
  .default('nats://127.0.0.1:4222');
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
  /**
   * How long a process's settlements wait to share one message to billing and one transaction
   * there (docs/billing.md, "The hot path"); 0 sends each at once. The settlement journal keeps
   * them meanwhile, so a longer window delays only when a charge shows in the balance.
   */
  SETTLE_WINDOW_MS: z.coerce.number().int().min(0).max(1_000).default(50),
  SETTLEMENT_JOURNAL_DIR: z
    .string()
    .min(1)
    .default(path.join(REPO_ROOT, 'tmp', 'settlements')),
};
