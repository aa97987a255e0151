import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';

/** The `node -r` hook that runs TypeScript sources without a build. */
const REGISTER_TS = path.join(REPO_ROOT, 'apps/gateway/test/integration/support/register-ts.js');

/** A platform process started from its TypeScript sources (no build), with its output kept for assertions. */
export interface ServiceProcess {
  name: string;
  pid: number;
  output(): string;
  /** Resolves once the output contains `text` (or rejects when the process exits first). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** SIGKILL: the process dies mid-work, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
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
    waitFor: (text, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (output.includes(text)) done(resolve);
        };
        const failExit = () =>
          done(() => reject(new Error(`${name} exited with ${child.exitCode ?? child.signalCode} before "${text}":\n${output.slice(-3000)}`)));
        const timer = setTimeout(() => done(() => reject(new Error(`${name}: no "${text}" within ${timeoutMs} ms:\n${output.slice(-3000)}`))), timeoutMs);
        const done = (then: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', failExit);
          then();
        };
        listeners.add(check);
        child.once('exit', failExit);
        check();
        if (exited()) failExit();
      }),
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}
