import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from '../stack/free-port';
import { waitForPort } from '../stack/wait-for-port';

export interface PrivateNats {
  url: string;
  /** Kills the server (SIGKILL, as a crash) and resolves when it has exited; no-op without a binary. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after `kill`). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

const CANDIDATES = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].filter(Boolean) as string[];

export const natsServerBinary = (): string | undefined => CANDIDATES.find((p) => existsSync(p));
export const natsServerAvailable = (): boolean => natsServerBinary() !== undefined;

/**
 * A real nats-server of this test run's own, so queue groups of concurrent test runs (or a
 * platform a developer is running) never share messages, and a fault test may kill and restart
 * it. Falls back to NATS_URL when no binary.
 */
export async function startPrivateNats(): Promise<PrivateNats> {
  const bin = natsServerBinary();
  if (!bin) {
    const none = async () => undefined;
    return { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', kill: none, start: none, stop: none };
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    // One Go scheduler thread, as the platform runs it (docs/operations.md, "The NATS server").
    child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore', env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '1' } });
    await waitForPort(port, child, 'nats-server');
  };
  const signal = (sig: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(sig);
    });
  await start();
  return { url: `nats://127.0.0.1:${port}`, kill: () => signal('SIGKILL'), start, stop: () => signal('SIGTERM') };
}
