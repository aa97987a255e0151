import { ChildProcess, fork } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChatMessage } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { GenerateRequest, GenerateResult, OnText, TextEngine } from '../engine';
import { abortError, engineClosedError, engineCrashedError, engineUnavailableError } from './engine-errors';
import { contextLengthExceeded } from '../context-length';
import { DoneMessage, FailedMessage, GenerateMessage, ParentMessage, ReadyMessage, TextMessage, WorkerChatMessage, WorkerMessage, WorkerTokenLogprob } from './ipc-messages';
import { SlotQueue } from './slot-queue';
import { StopMatcher } from './stop-matcher';

/** The part of a pino logger the engine uses. Log ids, counts and timings only. */
export interface EngineLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface EmbeddedLlamaEngineOptions {
  modelPath: string;
  /** Tokens per sequence; default min(trained context, 4096). */
  contextSize?: number;
  /**
   * Generations running at once, as parallel sequences of one llama context (default 2: on 2 cores
   * that gave +40% aggregate tokens/s on the tiny model, equal on a 90M one, and short requests
   * are not stuck behind a long one). Each sequence has its own KV cache of `contextSize`.
   */
  maxParallel?: number;
  /** Generations waiting for a free sequence; more are rejected at once. */
  maxQueue?: number;
  /** llama.cpp threads; default: all cores but one (2 threads on 2 cores measured far slower). */
  threads?: number;
  logger?: EngineLogger;
  /** Restart delay after a crash: doubles per consecutive crash, from `min` up to `max` ms. */
  restartBackoffMs?: { min: number; max: number };
}

export const EMBEDDED_ENGINE_DEFAULTS = { maxParallel: 2, maxQueue: 16, restartBackoffMs: { min: 250, max: 10_000 } };

/** The build copies *.mjs next to the compiled .js; Jest runs from source where it already is. */
const WORKER_PATH = path.join(__dirname, 'llama-worker.mjs');
/** Text pieces in flight before the worker waits for the consumer (back-pressure window). */
const PIECE_WINDOW = 16;
const SHUTDOWN_GRACE_MS = 3000;

interface Worker {
  proc: ChildProcess;
  ready: boolean;
  fatal?: string;
  startWaiter?: { resolve: () => void; reject: (err: Error) => void };
}

interface Generation {
  id: number;
  onText?: OnText;
  stop: StopMatcher;
  parts: string[];
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  logprobs?: WorkerTokenLogprob[];
  settled: boolean;
  /** Pieces are handled one after another, each awaiting onText. */
  chain: Promise<void>;
  resolve(result: GenerateResult): void;
  reject(err: Error): void;
  release(): void;
}

/**
 * Runs a GGUF chat model with node-llama-cpp in a child process, so the ESM-only package and any
 * native crash stay out of the service; a dead child fails its in-flight generations and is
 * restarted with backoff. One model and one context per engine; requests beyond `maxParallel`
 * wait in a bounded FIFO queue.
 *
 * - Prompt: the model's chat template via node-llama-cpp's chat wrapper. A trailing assistant
 *   message is continued (prefill); otherwise a new assistant turn is opened.
 * - Sampling: temperature and top_p default to OpenAI's 1; top_k stays node-llama-cpp's 40.
 * - Counts: exact model tokens; completionTokens excludes the end-of-turn token, and for a stop
 *   string counts up to the token that completed it.
 * - Abort: generate() rejects at once with an `AbortError` (EngineAbortError) and the worker
 *   stops after its current token; partial text is not returned.
 * - Each sequence keeps its KV cache, so a follow-up request re-sending the same history only
 *   evaluates the new tail of the prompt.
 */
export class EmbeddedLlamaEngine implements TextEngine {
  readonly kind = 'embedded' as const;
  private readonly queue: SlotQueue;
  private readonly log: EngineLogger;
  private readonly threads: number;
  private readonly maxParallel: number;
  private readonly backoff: { min: number; max: number };
  private worker?: Worker;
  private starting?: Promise<void>;
  private lastStartFailure?: { reason: string; retryAt: number };
  private consecutiveFailures = 0;
  private readonly generations = new Map<number, Generation>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: EmbeddedLlamaEngineOptions) {
    this.maxParallel = options.maxParallel ?? EMBEDDED_ENGINE_DEFAULTS.maxParallel;
    this.threads = options.threads ?? Math.max(1, os.availableParallelism() - 1);
    this.backoff = options.restartBackoffMs ?? EMBEDDED_ENGINE_DEFAULTS.restartBackoffMs;
    this.queue = new SlotQueue(this.maxParallel, options.maxQueue ?? EMBEDDED_ENGINE_DEFAULTS.maxQueue);
    this.log = options.logger ?? createLogger('chat').child({ engine: 'embedded-llama', model: path.basename(options.modelPath) });
  }

  /** The worker's process id while it runs (diagnostics and tests). */
  get workerPid(): number | undefined {
    return this.worker?.proc.pid;
  }

  get stats(): { running: number; queued: number } {
    return this.queue.stats();
  }

  ready(): Promise<void> {
    return this.ensureWorker();
  }

  async generate(request: GenerateRequest, onText?: OnText): Promise<GenerateResult> {
    if (this.closed) throw engineClosedError();
    const { signal } = request;
    const release = await this.queue.acquire(signal);
    let handedOver = false;
    try {
      await abortable(this.ensureWorker(), signal);
      if (this.closed) throw engineClosedError();
      handedOver = true;
      return await this.run(request, onText, release);
    } finally {
      if (!handedOver) release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue.rejectAll(engineClosedError());
    for (const gen of this.generations.values()) this.settleError(gen, engineClosedError());
    this.generations.clear();
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.proc.once('exit', () => resolve()));
    if (worker.proc.exitCode === null && worker.proc.signalCode === null) {
      this.send(worker, { type: 'shutdown' });
      const timer = setTimeout(() => worker.proc.kill('SIGKILL'), SHUTDOWN_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
  }

  private run(request: GenerateRequest, onText: OnText | undefined, release: () => void): Promise<GenerateResult> {
    const worker = this.worker;
    if (request.signal.aborted || !worker?.ready) {
      release();
      return Promise.reject(request.signal.aborted ? abortError(request.signal) : engineUnavailableError('the model process is not running'));
    }
    return new Promise<GenerateResult>((resolve, reject) => {
      const id = this.nextId++;
      const { signal } = request;
      const onAbort = () => {
        this.send(worker, { type: 'cancel', id });
        this.settleError(gen, abortError(signal));
      };
      const gen: Generation = {
        id,
        onText,
        stop: new StopMatcher(request.stop),
        parts: [],
        promptTokens: 0,
        completionTokens: 0,
        cachedTokens: 0,
        logprobs: request.logprobs ? [] : undefined,
        settled: false,
        chain: Promise.resolve(),
        resolve: (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        reject: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
        release,
      };
      this.generations.set(id, gen);
      signal.addEventListener('abort', onAbort, { once: true });
      this.send(worker, {
        type: 'generate',
        id,
        messages: toWorkerMessages(request.messages),
        maxTokens: request.maxTokens,
        // OpenAI's defaults: temperature 1, top_p 1.
        temperature: request.temperature ?? 1,
        topP: request.topP ?? 1,
        seed: request.seed === undefined ? undefined : request.seed >>> 0,
        ...workerFeatures(request),
        window: PIECE_WINDOW,
      });
    });
  }

  private ensureWorker(): Promise<void> {
    if (this.closed) return Promise.reject(engineClosedError());
    if (this.worker?.ready) return Promise.resolve();
    if (this.starting) return this.starting;
    const failure = this.lastStartFailure;
    if (failure && Date.now() < failure.retryAt) {
      return Promise.reject(engineUnavailableError(`${failure.reason} (next attempt in ${failure.retryAt - Date.now()} ms)`));
    }
    return this.startWorker(0);
  }

  private startWorker(delayMs: number): Promise<void> {
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
    return new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const proc = fork(WORKER_PATH, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const worker: Worker = { proc, ready: false, startWaiter: { resolve, reject } };
      this.worker = worker;
      proc.on('message', (message: WorkerMessage) => this.onMessage(worker, message));
      proc.once('exit', (code, signal) => this.onExit(worker, signal ?? `code ${code}`));
      proc.on('error', (err) => {
        this.log.error({ err: err.message }, 'embedded model process error');
        if (proc.pid === undefined) this.onExit(worker, 'spawn failed');
      });
      this.log.info({ pid: proc.pid, threads: this.threads, maxParallel: this.maxParallel, spawnMs: Date.now() - started }, 'starting embedded model process');
      this.send(worker, { type: 'init', modelPath: this.options.modelPath, contextSize: this.options.contextSize, sequences: this.maxParallel, threads: this.threads });
    });
  }

  private onMessage(worker: Worker, message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        return this.onReady(worker, message);
      case 'fatal':
        worker.fatal = message.message;
        return;
      case 'log':
        return this.log.warn({ llamaLevel: message.level, line: message.message }, 'llama.cpp');
      case 'started': {
        const gen = this.generations.get(message.id);
        if (gen) {
          gen.promptTokens = message.promptTokens;
          gen.cachedTokens = message.reusedTokens;
        }
        this.log.debug({ id: message.id, promptTokens: message.promptTokens, reusedTokens: message.reusedTokens }, 'generation started');
        return;
      }
      case 'text':
        return this.enqueue(message.id, (gen) => this.onPiece(worker, gen, message));
      case 'done':
        return this.onDone(message);
      case 'failed':
        return this.onFailed(message);
    }
  }

  private onReady(worker: Worker, message: ReadyMessage): void {
    worker.ready = true;
    this.lastStartFailure = undefined;
    const { loadMs, contextSize, trainContextSize, sequences, threads, chatWrapper } = message;
    this.log.info({ pid: worker.proc.pid, loadMs, contextSize, trainContextSize, sequences, threads, chatWrapper }, 'embedded model ready');
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
    this.consecutiveFailures++;
    const delay = Math.min(this.backoff.max, this.backoff.min * 2 ** (this.consecutiveFailures - 1));
    if (worker.startWaiter) {
      const reason = worker.fatal ? `could not load the model: ${worker.fatal}` : `the model process exited while loading (${detail})`;
      this.lastStartFailure = { reason, retryAt: Date.now() + delay };
      this.log.error({ pid: worker.proc.pid, detail, reason, retryInMs: delay }, 'embedded model failed to start');
      worker.startWaiter.reject(engineUnavailableError(reason));
      return;
    }
    const inFlight = [...this.generations.values()];
    this.generations.clear();
    for (const gen of inFlight) {
      gen.release();
      this.settleError(gen, engineCrashedError(detail));
    }
    this.log.error({ pid: worker.proc.pid, detail, failedGenerations: inFlight.length, restartInMs: delay }, 'embedded model process exited; restarting');
    this.startWorker(delay).catch(() => undefined); // failures are reported to the requests that wait on it
  }

  private enqueue(id: number, step: (gen: Generation) => Promise<void>): void {
    const gen = this.generations.get(id);
    if (!gen) return;
    gen.chain = gen.chain.then(() => step(gen)).catch((err: unknown) => {
      if (this.worker) this.send(this.worker, { type: 'cancel', id });
      this.settleError(gen, err instanceof Error ? err : new Error(String(err)));
    });
  }

  private async onPiece(worker: Worker, gen: Generation, message: TextMessage): Promise<void> {
    if (gen.settled) return;
    const { emit, stopped } = gen.stop.push(message.text);
    gen.completionTokens = message.completionTokens;
    if (message.logprobs) gen.logprobs?.push(...message.logprobs);
    await this.emit(gen, emit);
    if (gen.settled) return;
    if (stopped) {
      this.send(worker, { type: 'cancel', id: gen.id });
      this.settleResult(gen, 'stop');
    } else {
      this.send(worker, { type: 'credit', id: gen.id, pieces: 1 });
    }
  }

  private onDone(message: DoneMessage): void {
    const gen = this.generations.get(message.id);
    if (!gen) return;
    this.generations.delete(message.id);
    gen.release();
    if (message.reason !== 'cancelled') this.consecutiveFailures = 0;
    this.log.debug(
      { id: message.id, reason: message.reason, promptTokens: message.promptTokens, completionTokens: message.completionTokens, ms: message.generateMs },
      'generation finished',
    );
    gen.chain = gen.chain
      .then(async () => {
        if (gen.settled) return;
        if (message.reason === 'cancelled') throw engineUnavailableError('the generation was cancelled by the model process');
        gen.promptTokens = message.promptTokens;
        gen.completionTokens = message.completionTokens;
        await this.emit(gen, gen.stop.flush());
        this.settleResult(gen, message.reason === 'length' ? 'length' : 'stop');
      })
      .catch((err: unknown) => this.settleError(gen, err instanceof Error ? err : new Error(String(err))));
  }

  private onFailed(message: FailedMessage): void {
    const gen = this.generations.get(message.id);
    if (!gen) return;
    this.generations.delete(message.id);
    gen.release();
    this.log.warn({ id: message.id, code: message.code }, 'generation failed');
    const error =
      message.code === 'prompt_too_long'
        ? contextLengthExceeded(message.promptTokens, message.contextTokens)
        : message.code === 'bad_grammar'
          ? new DomainError(ErrorCode.Validation, `response_format: this JSON schema cannot be enforced on this model (${message.message})`)
          : engineUnavailableError(`generation failed: ${message.message}`);
    gen.chain = gen.chain.then(() => this.settleError(gen, error));
  }

  private async emit(gen: Generation, text: string): Promise<void> {
    if (!text || gen.settled) return;
    gen.parts.push(text);
    await gen.onText?.(text);
  }

  private settleResult(gen: Generation, finishReason: GenerateResult['finishReason']): void {
    if (gen.settled) return;
    gen.settled = true;
    gen.resolve({
      text: gen.parts.join(''),
      finishReason,
      promptTokens: gen.promptTokens,
      completionTokens: gen.completionTokens,
      cachedTokens: gen.cachedTokens,
      ...(gen.logprobs ? { logprobs: { content: gen.logprobs, refusal: null } } : {}),
    });
  }

  private settleError(gen: Generation, err: Error): void {
    if (gen.settled) return;
    gen.settled = true;
    gen.reject(err);
  }

  private send(worker: Worker, message: ParentMessage): void {
    if (worker.proc.connected) worker.proc.send(message);
  }
}

/** The optional sampling, grammar and cache fields of a generate message. */
function workerFeatures(request: GenerateRequest): Partial<GenerateMessage> {
  const features: Partial<GenerateMessage> = {};
  if (request.topK !== undefined) features.topK = request.topK;
  if (request.minP !== undefined) features.minP = request.minP;
  const { repetitionPenalty: repetition, presencePenalty: presence, frequencyPenalty: frequency } = request;
  if (repetition !== undefined || presence !== undefined || frequency !== undefined) features.penalties = { repetition, presence, frequency };
  if (request.output) features.grammar = request.output.kind === 'json_object' ? { kind: 'json_object' } : { kind: 'json_schema', schema: request.output.schema };
  if (request.logprobs) features.logprobs = { top: request.topLogprobs ?? 0 };
  if (request.cacheKey !== undefined) features.cacheKey = request.cacheKey;
  return features;
}

/** developer counts as system, tool results as user: ChatML-style templates know only these three. */
export function toWorkerMessages(messages: ChatMessage[]): WorkerChatMessage[] {
  return messages.map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : m.role === 'system' || m.role === 'developer' ? 'system' : 'user',
    content: textForTemplate(m),
  }));
}

/** Tool calls and tool results as plain text, the way the embedded tool prompt describes them (docs/chat.md). */
function textForTemplate(m: ChatMessage): string {
  if (m.role === 'tool') return `Result of tool call ${m.tool_call_id ?? ''}: ${m.content}`;
  if (m.role === 'assistant' && m.tool_calls?.length) {
    const calls = m.tool_calls.map((c) => JSON.stringify({ name: c.function.name, arguments: safeJson(c.function.arguments) }));
    return [m.content, ...calls].filter(Boolean).join('\n');
  }
  return m.content;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
