import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';

const REGISTER_TS = path.join(REPO_ROOT, 'apps/gateway/test/integration/support/register-ts.js');

export interface BenchProcess {
  name: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface BenchProcessOptions {
  /** The process output goes to `<logDir>/<name>.log`. */
  logDir: string;
  timeoutMs?: number;
}

/**
 * A platform process from its TypeScript sources for a benchmark; resolves when its output
 * contains `ready`. Only the first 200 kB of output is kept in memory (for the error message);
 * all of it goes to the log file.
 */
export function startBenchProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  ready: string,
  options: BenchProcessOptions,
): Promise<BenchProcess> {
  const timeoutMs = options.timeoutMs ?? 180_000;
  mkdirSync(options.logDir, { recursive: true });
  const log = createWriteStream(path.join(options.logDir, `${name}.log`));
  const child: ChildProcess = spawn(process.execPath, ['-r', REGISTER_TS, path.join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    log.end();
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} not ready within ${timeoutMs} ms:\n${out.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      if (out.length < 200_000) out += chunk.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve({ name, pid: child.pid, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${out.slice(-2000)}`));
    });
  });
}
