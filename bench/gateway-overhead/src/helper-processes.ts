import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { natsServerBinary } from '@svc/testing';

/** The repository root (where nx.json is), from src or dist alike. */
export function repoRoot(start = __dirname): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'nx.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Helper {
  url: string;
  /** Undefined when the helper is not a process of this run. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * The fake OpenAI upstream in a process of its own (the compiled bench/fake-upstream CLI), so the
 * load generator in this process does not share an event loop with the server it measures.
 */
export async function startFakeUpstream(root: string, port: number, tokens: number): Promise<Helper> {
  const cli = path.join(root, 'dist/bench/fake-upstream/src/main.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, ['-r', path.join(root, 'tools/register-paths.js'), cli, '--port', String(port), '--tokens', String(tokens)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`fake upstream exited with ${code}: ${out}`)));
  });
  return { url, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * A nats-server of the benchmark's own, so another platform on the shared NATS (a developer's, a
 * test run's) cannot take requests from the services' queue groups, and its CPU can be counted.
 * Falls back to NATS_URL when no binary is installed.
 */
export async function startPrivateNats(): Promise<Helper> {
  const bin = natsServerBinary();
  if (!bin) return { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', pid: undefined, stop: async () => undefined };
  const port = await freePort();
  // One Go scheduler thread, as the platform runs it (docs/operations.md, "The NATS server").
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore', env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '1' } });
  const deadline = Date.now() + 5_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('nats-server did not start within 5 s');
    await sleep(20);
  }
  return { url: `nats://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
