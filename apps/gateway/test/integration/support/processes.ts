import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';

const REGISTER_TS = path.join(__dirname, 'register-ts.js');

/** A platform process started from its TypeScript sources (no build), with its output kept for assertions. */
export interface ServiceProcess {
  name: string;
  pid: number;
  output(): string;
  /** Resolves once the output contains `text` (or rejects when the process exits first). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export function startService(name: string, entry: string, env: Record<string, string>): ServiceProcess {
  const child: ChildProcess = spawn(process.execPath, ['-r', REGISTER_TS, path.join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return {
    name,
    pid: child.pid as number,
    output: () => output,
    waitFor: (text, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (output.includes(text)) done(resolve);
        };
        const exited = (code: number | null) => done(() => reject(new Error(`${name} exited with ${code} before "${text}":\n${output.slice(-3000)}`)));
        const timer = setTimeout(() => done(() => reject(new Error(`${name}: no "${text}" within ${timeoutMs} ms:\n${output.slice(-3000)}`))), timeoutMs);
        const done = (then: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', exited);
          then();
        };
        listeners.add(check);
        child.once('exit', exited);
        check();
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
