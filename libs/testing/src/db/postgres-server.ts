import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../stack/free-port';

const execFileAsync = promisify(execFile);
const BIN_DIRS = [process.env.PG_BIN_DIR, ...listPgBinDirs()].filter(Boolean) as string[];

function listPgBinDirs(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, 'bin'));
}

const binDir = (): string | undefined => BIN_DIRS.find((d) => existsSync(path.join(d, 'initdb')) && existsSync(path.join(d, 'postgres')));

export const postgresServerAvailable = (): boolean => binDir() !== undefined;

/** A PostgreSQL server of the test's own (a fresh cluster in a temporary folder), which the test may crash and start again. */
export interface PrivatePostgres {
  /** `postgresql://postgres@127.0.0.1:<port>`, without a database name. */
  url: string;
  /** SIGKILL, as a crash: the next start runs crash recovery. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes the cluster. */
  stop(): Promise<void>;
}

/**
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` user and both
 * initdb and the server run as that user. fsync is off: a crash of the server's processes keeps
 * what the OS has (a machine crash would not). synchronous_commit stays on: with it off, a crash
 * loses transactions the server already reported committed, which no platform could survive.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found (set PG_BIN_DIR)');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-pg-'));
  const data = path.join(dir, 'data');
  const user = asRoot ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
  if (asRoot) chownSync(dir, user.uid as number, user.gid as number);
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], { stdio: 'ignore', cwd: dir, ...user });
  const port = await freePort();
  let child: ChildProcess | undefined;
  let lastError = '';
  const start = async () => {
    const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'fsync=off', '-c', 'full_page_writes=off'];
    // Its own process group, so a crash takes the backends with the postmaster.
    child = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), ...settings], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
      cwd: dir,
      ...user,
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', () => (lastError = stderr.slice(-2000)));
    await waitUntilReady(bin, port, child).catch((err: Error) => {
      throw new Error(`${err.message}: ${lastError}`);
    });
  };
  const kill = () =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      process.kill(-(child.pid as number), 'SIGKILL');
    });
  await start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}`,
    kill,
    start,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilReady(bin: string, port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}`);
    try {
      // Not execFileSync: a test measuring traffic while the server restarts shares this event loop.
      await execFileAsync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres']);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('postgres did not become ready within 30 s');
}
