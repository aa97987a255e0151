import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from '../stack/free-port';
import { waitForPort } from '../stack/wait-for-port';

export interface PrivateNats {
  url: string;
  stop(): Promise<void>;
}

const CANDIDATES = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].filter(Boolean) as string[];

/**
 * A real nats-server of this test run's own, so queue groups of concurrent test runs (or a
 * platform a developer is running) never share messages. Falls back to NATS_URL when no binary.
 */
export async function startPrivateNats(): Promise<PrivateNats> {
  const bin = CANDIDATES.find((p) => existsSync(p));
  if (!bin) return { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', stop: async () => undefined };
  const port = await freePort();
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  await waitForPort(port, child, 'nats-server');
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
