import { ModelDefinition } from '@svc/catalog';
import { TextCompletionParams } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { timeEngineRequest } from '@svc/messaging';
import { traceEngine } from '@svc/tracing';
import { GenerateResult, TextEngine } from '../../engines/engine';
import { toGenerateRequest } from './generate-request';
import { runGeneration } from './run-generation';
import { AnswerMismatchError } from './schema-check';

/** A model that may answer a request: the requested one first, then its `fallbacks` in order. */
export interface Candidate {
  model: ModelDefinition;
  /** Resolves the engine lazily: an unavailable fallback fails only when it is reached. */
  engine: () => TextEngine;
}

export interface ChoiceEvents {
  /** A candidate model is about to be tried (the first, then each fallback). */
  candidate?(model: ModelDefinition): void;
  /** A piece of choice `index`'s text. */
  text?(index: number, text: string): Promise<void>;
  /** Choice `index` finished (streaming sends its finish chunk here). */
  done?(index: number, result: GenerateResult): Promise<void>;
  /** A model server was retried (connect error, 502/503 before any byte). */
  retry?(): void;
}

export interface Choices {
  model: ModelDefinition;
  results: GenerateResult[];
}

/** Failures a fallback model may answer instead: the model server failed, not the request. */
const FALLBACK_CODES = new Set<ErrorCode>([ErrorCode.Upstream, ErrorCode.ServiceUnavailable, ErrorCode.Timeout, ErrorCode.RateLimited]);
/** The model's answer missed its schema twice: a 400, but another model may well meet it. */
const fallsBack = (err: unknown): boolean => err instanceof AnswerMismatchError || (err instanceof DomainError && FALLBACK_CODES.has(err.code));

/**
 * Generates the request's `n` choices (one after another; seed + i when a seed is given) on the
 * first candidate that answers. A candidate that fails before any output with a server-side
 * error, or whose answer missed its schema twice, passes the request to the next; other
 * validation errors and failures after output do not.
 */
export async function generateChoices(candidates: Candidate[], params: TextCompletionParams, signal: AbortSignal, events: ChoiceEvents = {}): Promise<Choices> {
  const n = params.n ?? 1;
  let lastError: unknown;
  for (const [position, candidate] of candidates.entries()) {
    const base = toGenerateRequest(candidate.model, params, signal);
    if (events.retry) base.onUpstreamRetry = events.retry;
    let produced = false;
    const results: GenerateResult[] = [];
    try {
      events.candidate?.(candidate.model);
      const engine = candidate.engine();
      for (let index = 0; index < n; index++) {
        const request = base.seed !== undefined ? Object.assign({}, base, { seed: base.seed + index }) : base;
        const onText = events.text
          ? async (text: string) => {
              produced = true;
              await events.text!(index, text);
            }
          : undefined;
        const timed = timeEngineRequest(candidate.model.id);
        const result = await traceEngine(candidate.model.id, engine.kind, () => runGeneration(engine, request, onText)).finally(timed);
        results.push(result);
        produced = true;
        await events.done?.(index, result);
      }
      return { model: candidate.model, results };
    } catch (err) {
      lastError = err;
      const last = position === candidates.length - 1;
      if (last || produced || signal.aborted || !fallsBack(err)) throw err;
    }
  }
  throw lastError;
}
