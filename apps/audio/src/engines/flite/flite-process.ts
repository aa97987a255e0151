import { ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { Logger } from '@svc/logging';

const WORKER_PATH = path.join(__dirname, 'flite-worker.mjs');

type WorkerMessage = { t: 'ready' } | { t: 'audio'; id: number; wav: Buffer | { type: 'Buffer'; data: number[] } } | { t: 'error'; id: number; error: string };

interface Pending {
  resolve: (wav: Buffer) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class FliteCrashedError extends Error {
  override name = 'FliteCrashedError';
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/**
 * Flite (WASI) in a child process: one utterance at a time, in order. A crash, hang or timeout
 * kills that process only; the next call starts a fresh one. The service never runs WASI itself.
 */
export class FliteProcess {
  private child: ChildProcess | null = null;
  private starting: Promise<ChildProcess> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly log: Logger,
    private readonly timeoutMs: number,
  ) {}

  start(): Promise<ChildProcess> {
    if (this.child) return Promise.resolve(this.child);
    this.starting ??= new Promise<ChildProcess>((resolve, reject) => {
      const child = fork(WORKER_PATH, [], { execArgv: ['--expose-gc'], serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      const started = Date.now();
      const onEarlyExit = (code: number | null, signal: string | null) => {
        this.starting = null;
        reject(new FliteCrashedError(`the Flite process exited while starting (${signal ?? code})`));
      };
      child.once('exit', onEarlyExit);
      child.on('message', (msg: WorkerMessage) => {
        if (msg.t === 'ready') {
          child.off('exit', onEarlyExit);
          child.once('exit', (code, signal) => this.onExit(child, code, signal));
          this.child = child;
          this.starting = null;
          this.log.info({ pid: child.pid, ms: Date.now() - started }, 'flite process ready');
          resolve(child);
          return;
        }
        const pending = this.pending.get(msg.id);
        if (!pending) return;
        this.pending.delete(msg.id);
        clearTimeout(pending.timer);
        if (msg.t === 'audio') pending.resolve(Buffer.isBuffer(msg.wav) ? msg.wav : Buffer.from((msg.wav as { data: number[] }).data ?? msg.wav));
        else pending.reject(new Error(`flite failed: ${msg.error}`));
      });
    });
    return this.starting;
  }

  /**
   * Synthesizes one utterance; calls are serialized (one Flite instance runs at a time). When
   * the process dies under it, the utterance is tried once more in a fresh process.
   */
  speak(voice: string, text: string): Promise<Buffer> {
    const run = this.tail.then(() =>
      this.speakNow(voice, text).catch((err: unknown) => {
        if (!(err instanceof FliteCrashedError) || err.timedOut) throw err;
        return this.speakNow(voice, text);
      }),
    );
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async speakNow(voice: string, text: string): Promise<Buffer> {
    const child = await this.start();
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new FliteCrashedError(`flite took longer than ${this.timeoutMs} ms`, true));
        child.kill('SIGKILL');
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      child.send({ t: 'speak', id, voice, text });
    });
  }

  /** Pid of the running process (tests kill it to prove recovery). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: string | null): void {
    if (this.child === child) this.child = null;
    if (this.pending.size > 0) this.log.warn({ pid: child.pid, code, signal }, 'flite process died; it restarts on the next request');
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new FliteCrashedError(`the Flite process died (${signal ?? code})`));
      this.pending.delete(id);
    }
  }
}
