import { randomInt } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChatMessage } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { GenerateRequest, GenerateResult, OnText, TextEngine } from '../engine';
import { contextLengthExceeded } from '../context-length';
import { abortable } from './abortable';
import { abortError, engineClosedError, engineCrashedError, engineUnavailableError } from './engine-errors';
import { EMBEDDED_ENGINE_DEFAULTS, EmbeddedLlamaEngineOptions, EngineLogger } from './engine-options';
import { workerFeatures, workerPrompt } from './generate-message';
import { emitText, Generation, settleError, settleResult } from './generation';
import { DoneMessage, FailedMessage, TextMessage } from './ipc-messages';
import { SlotQueue } from './slot-queue';
import { StopMatcher } from './stop-matcher';
import { GenerationMessage, sendTo, Worker, WorkerSupervisor } from './worker-supervisor';

export { EMBEDDED_ENGINE_DEFAULTS } from './engine-options';
export type { EmbeddedLlamaEngineOptions, EngineLogger } from './engine-options';
export { toWorkerMessages } from './generate-message';

/** Text pieces in flight before the worker waits for the consumer (back-pressure window). */
const PIECE_WINDOW = 16;

/**
 * Runs a GGUF chat model with node-llama-cpp in a child process, so the ESM-only package and any
 * native crash stay out of the service; a dead child fails its in-flight generations and is
 * restarted with backoff (WorkerSupervisor). One model and one context per engine; requests beyond
 * `maxParallel` wait in a bounded FIFO queue (SlotQueue).
 *
 * - Prompt: the model's chat template via node-llama-cpp's chat wrapper. A trailing assistant
 *   message is continued (prefill); otherwise a new assistant turn is opened. A raw prompt
 *   (POST /completions) is tokenized as it is, with the model's begin-of-text token, and continued.
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
  private readonly workers: WorkerSupervisor;
  private readonly generations = new Map<number, Generation>();
  /** Counts waiting for the worker's answer (they take no sequence: tokenizing is immediate). */
  private readonly counts = new Map<number, (promptTokens: number | null) => void>();
  private nextId = 1;
  private closed = false;

  constructor(options: EmbeddedLlamaEngineOptions) {
    const maxParallel = options.maxParallel ?? EMBEDDED_ENGINE_DEFAULTS.maxParallel;
    this.queue = new SlotQueue(maxParallel, options.maxQueue ?? EMBEDDED_ENGINE_DEFAULTS.maxQueue);
    this.log = options.logger ?? createLogger('chat').child({ engine: 'embedded-llama', model: path.basename(options.modelPath) });
    this.workers = new WorkerSupervisor({
      modelPath: options.modelPath,
      contextSize: options.contextSize,
      sequences: maxParallel,
      threads: options.threads ?? Math.max(1, os.availableParallelism() - 1),
      backoff: options.restartBackoffMs ?? EMBEDDED_ENGINE_DEFAULTS.restartBackoffMs,
      log: this.log,
      onMessage: (worker, message) => this.onMessage(worker, message),
      onCrash: (detail) => this.failInFlight(detail),
    });
  }

  /** The worker's process id while it runs (diagnostics and tests). */
  get workerPid(): number | undefined {
    return this.workers.current?.proc.pid;
  }

  get stats(): { running: number; queued: number } {
    return this.queue.stats();
  }

  ready(): Promise<void> {
    return this.workers.ensure();
  }

  async generate(request: GenerateRequest, onText?: OnText): Promise<GenerateResult> {
    if (this.closed) throw engineClosedError();
    const { signal } = request;
    const release = await this.queue.acquire(signal);
    let handedOver = false;
    try {
      await abortable(this.workers.ensure(), signal);
      if (this.closed) throw engineClosedError();
      handedOver = true;
      return await this.run(request, onText, release);
    } finally {
      if (!handedOver) release();
    }
  }

  /** The prompt's tokens (messages under the model's chat template, or raw text), from the worker: exactly what `generate` counts. */
  async countPromptTokens(prompt: ChatMessage[] | string): Promise<number | null> {
    if (this.closed) return null;
    await this.workers.ensure();
    const worker = this.workers.current;
    if (!worker?.ready) return null;
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.counts.set(id, resolve);
      sendTo(worker, { type: 'count', id, ...workerPrompt(prompt) });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.answerCounts(null);
    this.queue.rejectAll(engineClosedError());
    for (const gen of this.generations.values()) settleError(gen, engineClosedError());
    this.generations.clear();
    await this.workers.close();
  }

  private run(request: GenerateRequest, onText: OnText | undefined, release: () => void): Promise<GenerateResult> {
    const worker = this.workers.current;
    if (request.signal.aborted || !worker?.ready) {
      release();
      return Promise.reject(request.signal.aborted ? abortError(request.signal) : engineUnavailableError('the model process is not running'));
    }
    return new Promise<GenerateResult>((resolve, reject) => {
      const id = this.nextId++;
      const { signal } = request;
      const onAbort = () => {
        sendTo(worker, { type: 'cancel', id });
        settleError(gen, abortError(signal));
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
      sendTo(worker, {
        type: 'generate',
        id,
        ...workerPrompt(request.prompt ?? request.messages),
        maxTokens: request.maxTokens,
        // OpenAI's defaults: temperature 1, top_p 1.
        temperature: request.temperature ?? 1,
        topP: request.topP ?? 1,
        // No seed: a fresh one. node-llama-cpp's own default is the epoch second, which gave every
        // request within the same second the same "random" answer.
        seed: request.seed === undefined ? randomInt(2 ** 32) : request.seed >>> 0,
        ...workerFeatures(request),
        window: PIECE_WINDOW,
      });
    });
  }

  private onMessage(worker: Worker, message: GenerationMessage): void {
    switch (message.type) {
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
      case 'counted':
        this.counts.get(message.id)?.(message.promptTokens);
        this.counts.delete(message.id);
        return;
      case 'done':
        return this.onDone(message);
      case 'failed':
        return this.onFailed(message);
    }
  }

  /** The worker died mid-generation: every generation in flight fails with a 503. */
  private failInFlight(detail: string): number {
    this.answerCounts(null);
    const inFlight = [...this.generations.values()];
    this.generations.clear();
    for (const gen of inFlight) {
      gen.release();
      settleError(gen, engineCrashedError(detail));
    }
    return inFlight.length;
  }

  /** Answers every count still waiting (the worker died or the engine closed): uncounted. */
  private answerCounts(promptTokens: number | null): void {
    for (const resolve of this.counts.values()) resolve(promptTokens);
    this.counts.clear();
  }

  private enqueue(id: number, step: (gen: Generation) => Promise<void>): void {
    const gen = this.generations.get(id);
    if (!gen) return;
    gen.chain = gen.chain
      .then(() => step(gen))
      .catch((err: unknown) => {
        const worker = this.workers.current;
        if (worker) sendTo(worker, { type: 'cancel', id });
        settleError(gen, err instanceof Error ? err : new Error(String(err)));
      });
  }

  private async onPiece(worker: Worker, gen: Generation, message: TextMessage): Promise<void> {
    if (gen.settled) return;
    const { emit, stopped } = gen.stop.push(message.text);
    gen.completionTokens = message.completionTokens;
    if (message.logprobs) gen.logprobs?.push(...message.logprobs);
    await emitText(gen, emit);
    if (gen.settled) return;
    if (stopped) {
      sendTo(worker, { type: 'cancel', id: gen.id });
      settleResult(gen, 'stop');
    } else {
      sendTo(worker, { type: 'credit', id: gen.id, pieces: 1 });
    }
  }

  private onDone(message: DoneMessage): void {
    const gen = this.generations.get(message.id);
    if (!gen) return;
    this.generations.delete(message.id);
    gen.release();
    if (message.reason !== 'cancelled') this.workers.resetFailures();
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
        await emitText(gen, gen.stop.flush());
        settleResult(gen, message.reason === 'length' ? 'length' : 'stop');
      })
      .catch((err: unknown) => settleError(gen, err instanceof Error ? err : new Error(String(err))));
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
    gen.chain = gen.chain.then(() => settleError(gen, error));
  }
}
