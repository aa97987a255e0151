import { ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { engineClosedError, engineUnavailableError } from './engine-errors';
import { EngineLogger } from './engine-options';
import { FatalMessage, ParentMessage, ReadyMessage, WorkerMessage } from './ipc-messages';

/** The build copies *.mjs next to the compiled .js; Jest runs from source where it already is. */
const WORKER_PATH = path.join(__dirname, 'llama-worker.mjs');
const SHUTDOWN_GRACE_MS = 3000;

/** One forked llama-worker.mjs process. */
export interface Worker {
  proc: ChildProcess;
  ready: boolean;
  fatal?: string;
  startWaiter?: { resolve: () => void; reject: (err: Error) => void };
}

/** Generation messages of the worker (all but `ready` and `fatal`, which the supervisor handles). */
export type GenerationMessage = Exclude<WorkerMessage, ReadyMessage | FatalMessage>;

export interface WorkerSupervisorOptions {
  modelPath: string;
  contextSize?: number;
  sequences: number;
  threads: number;
  backoff: { min: number; max: number };
  log: EngineLogger;
  onMessage(worker: Worker, message: GenerationMessage): void;
  /** The running worker died: fail the generations in flight; returns how many there were. */
  onCrash(detail: string): number;
}

/** Sends to the worker while its IPC channel is open; messages to a dead worker are dropped. */
export function sendTo(worker: Worker, message: ParentMessage): void {
  if (worker.proc.connected) worker.proc.send(message);
}

/**
 * Starts the worker process on demand and restarts it after a crash, with a delay that doubles per
 * consecutive failure. While a failed start's delay runs, callers get a 503 at once.
 */
export class WorkerSupervisor {
  private worker?: Worker;
  private starting?: Promise<void>;
  private lastStartFailure?: { reason: string; retryAt: number };
  private consecutiveFailures = 0;
  private closed = false;

  constructor(private readonly options: WorkerSupervisorOptions) {}

  /** The worker, ready or still loading, if one runs. */
  get current(): Worker | undefined {
    return this.worker;
  }

  /** A ready worker, starting one if none runs. */
  ensure(): Promise<void> {
    if (this.closed) return Promise.reject(engineClosedError());
    if (this.worker?.ready) return Promise.resolve();
    if (this.starting) return this.starting;
    const failure = this.lastStartFailure;
    if (failure && Date.now() < failure.retryAt) {
      return Promise.reject(engineUnavailableError(`${failure.reason} (next attempt in ${failure.retryAt - Date.now()} ms)`));
    }
    return this.start(0);
  }

  /** A generation finished normally: the next crash restarts without delay growth from old ones. */
  resetFailures(): void {
    this.consecutiveFailures = 0;
  }

  /** Asks the worker to shut down, killing it after a grace period. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.proc.once('exit', () => resolve()));
    if (worker.proc.exitCode === null && worker.proc.signalCode === null) {
      sendTo(worker, { type: 'shutdown' });
      const timer = setTimeout(() => worker.proc.kill('SIGKILL'), SHUTDOWN_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
  }

  private start(delayMs: number): Promise<void> {
    const starting = (async () => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      if (this.closed) throw engineClosedError();
      await this.spawn();
    })();
    this.starting = starting;
    const clear = () => {
      if (this.starting === starting) this.starting = undefined;
    };
    starting.then(clear, clear);
    return starting;
  }

  private spawn(): Promise<void> {
    const { log } = this.options;
    return new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const proc = fork(WORKER_PATH, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const worker: Worker = { proc, ready: false, startWaiter: { resolve, reject } };
      this.worker = worker;
      proc.on('message', (message: WorkerMessage) => this.onMessage(worker, message));
      proc.once('exit', (code, signal) => this.onExit(worker, signal ?? `code ${code}`));
      proc.on('error', (err) => {
        log.error({ err: err.message }, 'embedded model process error');
        if (proc.pid === undefined) this.onExit(worker, 'spawn failed');
      });
      const { modelPath, contextSize, sequences, threads } = this.options;
      log.info({ pid: proc.pid, threads, maxParallel: sequences, spawnMs: Date.now() - started }, 'starting embedded model process');
      sendTo(worker, { type: 'init', modelPath, contextSize, sequences, threads });
    });
  }

  private onMessage(worker: Worker, message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        return this.onReady(worker, message);
      case 'fatal':
        worker.fatal = message.message;
        return;
      default:
        return this.options.onMessage(worker, message);
    }
  }

  private onReady(worker: Worker, message: ReadyMessage): void {
    worker.ready = true;
    this.lastStartFailure = undefined;
    const { loadMs, contextSize, trainContextSize, sequences, threads, chatWrapper } = message;
    this.options.log.info({ pid: worker.proc.pid, loadMs, contextSize, trainContextSize, sequences, threads, chatWrapper }, 'embedded model ready');
    worker.startWaiter?.resolve();
    worker.startWaiter = undefined;
  }

  private onExit(worker: Worker, detail: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    if (this.closed) {
      worker.startWaiter?.reject(engineClosedError());
      return;
    }
    const { log, backoff } = this.options;
    this.consecutiveFailures++;
    const delay = Math.min(backoff.max, backoff.min * 2 ** (this.consecutiveFailures - 1));
    if (worker.startWaiter) {
      const reason = worker.fatal ? `could not load the model: ${worker.fatal}` : `the model process exited while loading (${detail})`;
      this.lastStartFailure = { reason, retryAt: Date.now() + delay };
      log.error({ pid: worker.proc.pid, detail, reason, retryInMs: delay }, 'embedded model failed to start');
      worker.startWaiter.reject(engineUnavailableError(reason));
      return;
    }
    const failedGenerations = this.options.onCrash(detail);
    log.error({ pid: worker.proc.pid, detail, failedGenerations, restartInMs: delay }, 'embedded model process exited; restarting');
    this.start(delay).catch(() => undefined); // failures are reported to the requests that wait on it
  }
}
