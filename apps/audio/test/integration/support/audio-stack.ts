import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { REPO_ROOT } from '@svc/config';
import { serviceMigrationsDir } from '@svc/database';
import { createTestDatabase, freePort, startPrivateNats, startPrivateRedis } from '@svc/testing';

/** The gateway's `node -r` hook that runs TypeScript sources without a build. */
const REGISTER_TS = path.join(REPO_ROOT, 'apps/gateway/test/integration/support/register-ts.js');

export interface Proc {
  name: string;
  pid: number;
  output(): string;
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** SIGKILL: the process dies mid-work, as in a crash. */
  kill(): Promise<void>;
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
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const end = async (signal: NodeJS.Signals) => {
    if (exited()) return;
    const done = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await done;
    clearTimeout(timer);
  };
  return {
    name,
    pid: child.pid as number,
    output: () => output,
    waitFor: (text, timeoutMs = 120_000) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const tick = setInterval(() => {
          if (output.includes(text)) {
            clearInterval(tick);
            resolve();
          } else if (exited() || Date.now() - started > timeoutMs) {
            clearInterval(tick);
            reject(new Error(`${name}: no "${text}" (exit ${child.exitCode ?? child.signalCode}):\n${output.slice(-3000)}`));
          }
        }, 100);
      }),
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

export interface AudioStack {
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  adminKey: string;
  nc: NatsConnection;
  sql: Client;
  audio: Proc;
  gateway: Proc;
  /** Another audio service process on this stack (a second worker). */
  startAudio(name: string): Promise<Proc>;
  stop(): Promise<void>;
}

/**
 * Private NATS and Redis, fresh keys and billing databases, and the keys, billing, audio and
 * gateway processes from their TypeScript sources. The admin key is the bootstrap account's,
 * which billing credits with 100 USD. Job locks are short so a killed worker's job is taken
 * over within seconds.
 */
export async function startAudioStack(): Promise<AudioStack> {
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
    const keysDb = await createTestDatabase('audkeys', { migrationsDir: serviceMigrationsDir('keys') });
    stops.push(() => keysDb.drop());
    const billingDb = await createTestDatabase('audbill', { migrationsDir: serviceMigrationsDir('billing') });
    stops.push(() => billingDb.drop());
    const adminKey = `svc_aud_${randomBytes(24).toString('base64url')}`;
    const common = { NATS_URL: nats.url, REDIS_URL: redis.url, SVC_ADMIN_KEY: adminKey };
    const audioEnv = { AUDIO_JOB_LOCK_MS: '3000', AUDIO_JOB_STALLED_INTERVAL_MS: '1000', AUDIO_JOB_BACKOFF_MS: '200' };
    const start = (name: string, entry: string, env: Record<string, string>) => {
      const p = startProcess(name, entry, { ...common, ...env });
      stops.push(() => p.stop());
      return p;
    };
    const port = await freePort();
    const keys = start('keys', 'apps/keys/src/main.ts', { KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false' });
    const billing = start('billing', 'apps/billing/src/main.ts', { BILLING_DATABASE_URL: billingDb.url, BILLING_MIGRATE_ON_BOOT: 'false' });
    const audio = start('audio', 'apps/audio/src/main.ts', audioEnv);
    const gateway = start('gateway', 'apps/gateway/src/main.ts', { PORT: String(port), HOST: '127.0.0.1', REDIS_KEY_PREFIX: 'svc_test_audio:' });
    await Promise.all([keys.waitFor('keys service ready'), billing.waitFor('billing service ready'), audio.waitFor('audio service ready'), gateway.waitFor('gateway listening')]);
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const sql = new Client({ connectionString: keysDb.url });
    await sql.connect();
    stops.push(() => sql.end());
    return {
      api: `http://127.0.0.1:${port}/api/v1`,
      adminKey,
      nc,
      sql,
      audio,
      gateway,
      async startAudio(name) {
        const p = start(name, 'apps/audio/src/main.ts', audioEnv);
        await p.waitFor('audio service ready');
        return p;
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
