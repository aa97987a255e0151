import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';
import { serviceMigrationsDir } from '@svc/database';
import { createTestDatabase, freePort, startPrivateNats, startPrivateRedis } from '@svc/testing';

/** The gateway's `node -r` hook that runs TypeScript sources without a build. */
const REGISTER_TS = path.join(REPO_ROOT, 'apps/gateway/test/integration/support/register-ts.js');

export interface Proc {
  name: string;
  output(): string;
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function startProcess(name: string, entry: string, env: Record<string, string>): Proc {
  const child: ChildProcess = spawn(process.execPath, ['-r', REGISTER_TS, path.join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return {
    name,
    output: () => output,
    waitFor: (text, timeoutMs = 90_000) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const tick = setInterval(() => {
          if (output.includes(text)) {
            clearInterval(tick);
            resolve();
          } else if (child.exitCode !== null || Date.now() - started > timeoutMs) {
            clearInterval(tick);
            reject(new Error(`${name}: no "${text}" (exit ${child.exitCode}):\n${output.slice(-3000)}`));
          }
        }, 100);
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface ImageStack {
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  adminKey: string;
  processes: Proc[];
  stop(): Promise<void>;
}

/**
 * Private NATS and Redis, fresh keys and billing databases, and the keys, billing, media and
 * gateway processes from their TypeScript sources (plus chat when `withChat`). The admin key is
 * the bootstrap account's, which billing credits with 100 USD.
 */
export async function startImageStack(options: { mediaEnv?: Record<string, string>; gatewayEnv?: Record<string, string>; withChat?: boolean } = {}): Promise<ImageStack> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
  };
  try {
    const nats = await startPrivateNats();
    stops.push(() => nats.stop());
    const redis = await startPrivateRedis();
    stops.push(() => redis.stop());
    const keysDb = await createTestDatabase('imgkeys', { migrationsDir: serviceMigrationsDir('keys') });
    stops.push(() => keysDb.drop());
    const billingDb = await createTestDatabase('imgbill', { migrationsDir: serviceMigrationsDir('billing') });
    stops.push(() => billingDb.drop());
    const adminKey = `svc_img_${randomBytes(24).toString('base64url')}`;
    const common = { NATS_URL: nats.url, REDIS_URL: redis.url, SVC_ADMIN_KEY: adminKey };
    const processes: Proc[] = [];
    const start = (name: string, entry: string, env: Record<string, string>, ready: string) => {
      const p = startProcess(name, entry, { ...common, ...env });
      processes.push(p);
      stops.push(() => p.stop());
      return p.waitFor(ready, 120_000);
    };
    const port = await freePort();
    await Promise.all([
      start('keys', 'apps/keys/src/main.ts', { KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false' }, 'keys service ready'),
      start('billing', 'apps/billing/src/main.ts', { BILLING_DATABASE_URL: billingDb.url, BILLING_MIGRATE_ON_BOOT: 'false' }, 'billing service ready'),
      start('media', 'apps/media/src/main.ts', options.mediaEnv ?? {}, 'media service ready'),
      ...(options.withChat ? [start('chat', 'apps/chat/src/main.ts', {}, 'chat service ready')] : []),
      start('gateway', 'apps/gateway/src/main.ts', { PORT: String(port), HOST: '127.0.0.1', REDIS_KEY_PREFIX: 'svc_test_img:', ...(options.gatewayEnv ?? {}) }, 'gateway listening'),
    ]);
    return { api: `http://127.0.0.1:${port}/api/v1`, adminKey, processes, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
