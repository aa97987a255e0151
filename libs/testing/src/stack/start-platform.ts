import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';
import { PrivateNats, startPrivateNats } from '../nats/nats-server';
import { freePort } from './free-port';

export interface RunningPlatform {
  baseUrl: string;
  apiUrl: string;
  adminKey: string;
  /** The environment the platform runs with (its private NATS, databases, ...), to start another replica beside it. */
  env: Record<string, string>;
  /** The platform's private NATS server, which a fault test may kill and start again. */
  nats: PrivateNats;
  /** Everything the processes printed, for assertions about logs (privacy). */
  output(): string;
  stop(): Promise<void>;
}

export interface StartPlatformOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  /** PostgreSQL server for the fresh databases (default TEST_PG_URL or the local one), e.g. a private one a fault test restarts. */
  pgUrl?: string;
}

/**
 * Starts the whole platform the way a user does (`node tools/start/start.js`, i.e. `npm start`),
 * on a free port, a private NATS server and fresh databases, with a random bootstrap admin key.
 * Expects `npm run build` to have run (tools/test.js does it).
 */
export async function startPlatform(options: StartPlatformOptions = {}): Promise<RunningPlatform> {
  const port = await freePort();
  const nats = await startPrivateNats();
  const adminKey = `svc_e2e_${randomBytes(24).toString('base64url')}`;
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const pg = options.pgUrl ?? process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    NATS_URL: nats.url,
    SVC_ADMIN_KEY: adminKey,
    KEYS_DATABASE_URL: `${pg}/svc_test_e2e_keys_${runId}`,
    BILLING_DATABASE_URL: `${pg}/svc_test_e2e_billing_${runId}`,
    CHAT_DATABASE_URL: `${pg}/svc_test_e2e_chat_${runId}`,
    WALLET_DATABASE_URL: `${pg}/svc_test_e2e_wallet_${runId}`,
    // Rate-limit and abuse counters of concurrent runs must not meet in the shared Redis.
    REDIS_KEY_PREFIX: `svc_test_e2e_${runId}:`,
    // A platform's own settlement journals: another run's never replay into this one's billing.
    SETTLEMENT_JOURNAL_DIR: path.join(os.tmpdir(), `svc_test_e2e_settlements_${runId}`),
    SVC_SKIP_BUILD: '1',
    LOG_LEVEL: 'info',
    START_TIMEOUT_MS: String(options.timeoutMs ?? 90_000),
    ...options.env,
  };
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, 'tools/start/start.js')], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-(child.pid as number), 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
      clearTimeout(timer);
      if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    }
    await nats.stop();
    rmSync(env.SETTLEMENT_JOURNAL_DIR, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`platform did not start:\n${output.slice(-4000)}`)), (options.timeoutMs ?? 90_000) + 5_000);
      child.stdout?.on('data', () => {
        if (output.includes('platform ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`platform exited with ${code}:\n${output.slice(-4000)}`));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  const ownEnv = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return { baseUrl, apiUrl: `${baseUrl}/api/v1`, adminKey, env: ownEnv, nats, output: () => output, stop };
}
