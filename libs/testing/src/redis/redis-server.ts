import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from '../stack/free-port';
import { waitForPort } from '../stack/wait-for-port';

const CANDIDATES = [process.env.REDIS_SERVER_BIN, '/usr/bin/redis-server', '/usr/local/bin/redis-server'].filter(Boolean) as string[];

/** A redis-server of the test's own, which the test may stop and start again (Redis outage tests). */
export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export const redisServerAvailable = (): boolean => CANDIDATES.some((p) => existsSync(p));

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const bin = CANDIDATES.find((p) => existsSync(p));
  if (!bin) throw new Error('redis-server not found (set REDIS_SERVER_BIN)');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitForPort(port, child, 'redis-server');
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop };
}
