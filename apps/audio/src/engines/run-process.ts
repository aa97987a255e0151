import { spawn } from 'node:child_process';
import { inProcessSlot, ProcessKind } from './process-slots';

export interface RunOptions {
  /** Written to the child's stdin, which is then closed. */
  stdin?: Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Stdout beyond this is an error (protects memory from a runaway decoder). */
  maxStdoutBytes?: number;
  /** Which pool of process slots it waits for (process-slots.ts); default `media`. */
  kind?: ProcessKind;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
  code: number | null;
}

export class ProcessTimeoutError extends Error {
  override name = 'ProcessTimeoutError';
}
export class ProcessAbortedError extends Error {
  override name = 'ProcessAbortedError';
}

const STDERR_KEEP = 8_192;

/**
 * Runs a binary to completion with a deadline, once a process slot of its kind is free; the child
 * is SIGKILLed on timeout or abort. The deadline counts from the spawn, not from the wait.
 */
export function runProcess(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return inProcessSlot(options.kind ?? 'media', () => {
    if (options.signal?.aborted) return Promise.reject(new ProcessAbortedError('aborted'));
    return spawnToEnd(command, args, options);
  });
}

function spawnToEnd(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let failure: Error | null = null;
    const fail = (err: Error) => {
      if (failure) return;
      failure = err;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(new ProcessTimeoutError(`${command} took longer than ${options.timeoutMs} ms`)), options.timeoutMs);
    const onAbort = () => fail(new ProcessAbortedError('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (options.maxStdoutBytes !== undefined && outBytes > options.maxStdoutBytes)
        return fail(new RangeError(`output larger than ${options.maxStdoutBytes} bytes`));
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP);
    });
    child.stdin.on('error', () => undefined); // EPIPE when the child exits before reading everything
    child.on('error', (err) => fail(err));
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else resolve({ stdout: Buffer.concat(out), stderr, code });
    });
    if (options.signal?.aborted) onAbort();
    child.stdin.end(options.stdin ?? Buffer.alloc(0));
  });
}
