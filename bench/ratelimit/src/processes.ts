import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, WriteStream } from 'node:fs';
import path from 'node:path';

/** A process of the benchmark (built platform code under dist/), its output appended to a log file. */
export interface BenchProcess {
  name: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Resolves once the output matches `ready`, or at once without it (the caller probes readiness). */
export function startProcess(
  root: string,
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  log: WriteStream,
  ready?: RegExp,
  timeoutMs = 60_000,
): Promise<BenchProcess & { match?: RegExpExecArray }> {
  const file = path.join(root, script);
  if (!existsSync(file)) return Promise.reject(new Error(`${file} is missing: run \`npm run build\` first`));
  const child: ChildProcess = spawn(process.execPath, ['-r', path.join(root, 'tools/register-paths.js'), file, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => stopChild(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`${name} not ready within ${timeoutMs} ms:\n${out.slice(-2000)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      if (out.length < 100_000) out += chunk.toString();
      const match = ready?.exec(out);
      if (match) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve({ name, pid: child.pid, stop, match });
      }
    };
    const onExit = (code: number | null) => fail(new Error(`${name} exited with ${code}:\n${out.slice(-2000)}`));
    const fail = (err: Error) => {
      clearTimeout(timer);
      void stop().finally(() => reject(err));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    if (!ready) {
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ name, pid: child.pid, stop });
    }
  });
}

export function openLog(file: string): WriteStream {
  return createWriteStream(file, { flags: 'w' });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
