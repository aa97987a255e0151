import { ChatMessage } from '@svc/contracts';

/** One generation, engine-agnostic. Counts are in the engine's own tokens. */
export interface GenerateRequest {
  messages: ChatMessage[];
  maxTokens: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  /** Aborted when the caller goes away: the engine must stop generating promptly. */
  signal: AbortSignal;
}

export interface GenerateResult {
  text: string;
  finishReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
}

/**
 * Called for each piece of generated text, in order. The engine awaits the returned promise
 * before producing more, which is how back-pressure from a slow client reaches the model.
 */
export type OnText = (text: string) => void | Promise<void>;

export interface TextEngine {
  readonly kind: 'embedded' | 'upstream';
  /** Resolves once the engine can serve (weights loaded, or upstream configured). */
  ready(): Promise<void>;
  generate(request: GenerateRequest, onText?: OnText): Promise<GenerateResult>;
  close(): Promise<void>;
}

/** Thrown by `generate` when `signal` aborted: the caller is gone, so nobody sees this error. */
export class GenerationAbortedError extends Error {
  override name = 'GenerationAbortedError';
}
