import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';

const REGISTER_TS = path.join(REPO_ROOT, 'apps/gateway/test/integration/support/register-ts.js');
export const LOG_DIR = path.join(REPO_ROOT, 'tmp/bench-audio');

export interface BenchProcess {
  name: string;
  stop(): Promise<void>;
}

/** A platform process from its TypeScript sources; resolves when its output contains `ready`. Output goes to tmp/bench-audio/<name>.log. */
export function startFromSources(name: string, entry: string, env: Record<string, string>, ready: string, timeoutMs = 180_000): Promise<BenchProcess> {
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createWriteStream(path.join(LOG_DIR, `${name}.log`));
  const child: ChildProcess = spawn(process.execPath, ['-r', REGISTER_TS, path.join(REPO_ROOT, entry)], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
        resolve({ name, stop });
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
