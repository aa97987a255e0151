import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceMigrationsDir } from '@svc/database';
import { createTestDatabase } from '../db';
import { startPrivateNats } from '../nats/nats-server';
import { startPrivateRedis } from '../redis/redis-server';
import { ServiceProcess, startService } from './start-service';

export interface KeysBillingStack {
  natsUrl: string;
  /** The bootstrap account's admin key; billing credits the account with 100 USD. */
  adminKey: string;
  keysDatabaseUrl: string;
  /** Every process of the stack, keys and billing first, in start order. */
  processes: ServiceProcess[];
  /** Starts a process with the stack's NATS, Redis and admin key in its environment; `stop()` stops it. */
  start(name: string, entry: string, env?: Record<string, string>): ServiceProcess;
  /** Resolves once the keys and billing services are ready. */
  ready(timeoutMs: number): Promise<void>;
  /** Runs `stop` first on `stop()` (it runs in reverse order of registration). */
  onStop(stop: () => Promise<unknown> | unknown): void;
  stop(): Promise<void>;
}

/**
 * Private NATS and Redis, fresh keys and billing databases (named after `name`), and the keys and
 * billing services as processes from their TypeScript sources, with a random bootstrap admin key.
 * Callers start their own services with `start` and wait for them next to `ready`.
 */
export async function startKeysBillingStack(name: string): Promise<KeysBillingStack> {
  const stops: Array<() => Promise<unknown> | unknown> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => undefined);
    stops.length = 0;
  };
  try {
    const nats = await startPrivateNats();
    stops.push(() => nats.stop());
    const redis = await startPrivateRedis();
    stops.push(() => redis.stop());
    const keysDb = await createTestDatabase(`${name}keys`, { migrationsDir: serviceMigrationsDir('keys') });
    stops.push(() => keysDb.drop());
    const billingDb = await createTestDatabase(`${name}bill`, { migrationsDir: serviceMigrationsDir('billing') });
    stops.push(() => billingDb.drop());
    const adminKey = `svc_${name}_${randomBytes(24).toString('base64url')}`;
    const journals = path.join(os.tmpdir(), `svc_${name}_settlements_${randomBytes(4).toString('hex')}`);
    stops.push(() => rmSync(journals, { recursive: true, force: true }));
    const common = { NATS_URL: nats.url, REDIS_URL: redis.url, SVC_ADMIN_KEY: adminKey, SETTLEMENT_JOURNAL_DIR: journals };
    const processes: ServiceProcess[] = [];
    const start = (processName: string, entry: string, env: Record<string, string> = {}) => {
      const p = startService(processName, entry, { ...common, ...env });
      processes.push(p);
      stops.push(() => p.stop());
      return p;
    };
    const keys = start('keys', 'apps/keys/src/main.ts', { KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false' });
    const billing = start('billing', 'apps/billing/src/main.ts', { BILLING_DATABASE_URL: billingDb.url, BILLING_MIGRATE_ON_BOOT: 'false' });
    return {
      natsUrl: nats.url,
      adminKey,
      keysDatabaseUrl: keysDb.url,
      processes,
      start,
      ready: async (timeoutMs) => {
        await Promise.all([keys.waitFor('keys service ready', timeoutMs), billing.waitFor('billing service ready', timeoutMs)]);
      },
      onStop: (s) => stops.push(s),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
