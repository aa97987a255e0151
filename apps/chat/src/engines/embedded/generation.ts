import { GenerateResult, OnText } from '../engine';
import { WorkerTokenLogprob } from './ipc-messages';
import { StopMatcher } from './stop-matcher';

/** One generate() call while the worker runs it: text so far, counts, and how it ends. */
export interface Generation {
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

/** Passes text to the caller (awaiting its back-pressure) unless the generation has ended. */
export async function emitText(gen: Generation, text: string): Promise<void> {
  if (!text || gen.settled) return;
  gen.parts.push(text);
  await gen.onText?.(text);
}

export function settleResult(gen: Generation, finishReason: GenerateResult['finishReason']): void {
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

export function settleError(gen: Generation, err: Error): void {
  if (gen.settled) return;
  gen.settled = true;
  gen.reject(err);
}
