import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sleep } from './helper-processes';
import { errorMessage } from '@svc/errors';

export interface RunningPlatform {
  baseUrl: string;
  /** Process-group leader: `node tools/start/start.js`. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the platform as a user does (`node tools/start/start.js`) in its own process group,
 * with output in `logFile`, and waits for GET /healthz to answer 200. `onSpawn` gets its stop at
 * once, so that an interrupted wait (Ctrl-C during a slow start) does not leave it running.
 */
export async function startPlatform(
  root: string,
  env: NodeJS.ProcessEnv,
  port: number,
  logFile: string,
  timeoutMs: number,
  onSpawn?: (stop: () => Promise<void>) => void,
): Promise<RunningPlatform> {
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [path.join(root, 'tools/start/start.js')], { cwd: root, env, stdio: ['ignore', log, log], detached: true });
  closeSync(log);
  const pid = child.pid as number;
  let exitCode: number | string | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = signal ?? code;
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    if (exitCode !== null) return;
    signalGroup(pid, 'SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    if (exitCode === null) signalGroup(pid, 'SIGKILL');
    await Promise.race([exited, sleep(2_000)]);
  };
  onSpawn?.(stop);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (exitCode !== null) throw new Error(`the platform exited (${exitCode}) before /healthz answered:\n${tail(logFile)}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return { baseUrl, pid, stop };
      last = `HTTP ${res.status} ${(await res.text()).slice(0, 300)}`;
    } catch (err) {
      last = errorMessage(err);
    }
    await sleep(250);
  }
  await stop();
  throw new Error(`the platform did not answer /healthz 200 within ${timeoutMs} ms (last: ${last}):\n${tail(logFile)}`);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
