import { z } from 'zod';

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
};
