/**
 * Messages between EmbeddedLlamaEngine (parent, CommonJS) and llama-worker.mjs (child, ESM).
 * The worker is plain JavaScript, so this file is the contract both sides follow.
 */

/** Roles after normalisation: the worker maps them onto node-llama-cpp's chat history. */
export interface WorkerChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface InitMessage {
  type: 'init';
  modelPath: string;
  /** Tokens per sequence. */
  contextSize: number | undefined;
  sequences: number;
  threads: number;
}

/**
 * What a `generate` or `count` evaluates: chat messages under the model's chat template, or a raw
 * prompt tokenized as it is (with the begin-of-text token where the model expects one).
 */
export type WorkerPrompt = { messages: WorkerChatMessage[]; prompt?: undefined } | { prompt: string; messages?: undefined };

export type GenerateMessage = WorkerPrompt & GenerateOptionsMessage;

export interface GenerateOptionsMessage {
  type: 'generate';
  id: number;
  maxTokens: number;
  temperature: number;
  topP: number;
  seed: number | undefined;
  topK?: number;
  minP?: number;
  /** node-llama-cpp repeat penalties: repetition (>0, 1 = off), presence and frequency (OpenAI's). */
  penalties?: { repetition?: number; presence?: number; frequency?: number };
  /** A grammar the output must follow (JSON, or JSON matching a schema). */
  grammar?: WorkerGrammar;
  /** Per-token log probabilities with `top` alternatives each. */
  logprobs?: { top: number };
  /** prompt_cache_key: prefer the sequence last used with this key. */
  cacheKey?: string;
  /** Text pieces the worker may send before it must wait for a `credit`. */
  window: number;
}

export type WorkerGrammar = { kind: 'json_object' } | { kind: 'json_schema'; schema: Record<string, unknown> };

export interface WorkerTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

/** The parent consumed `pieces` text messages: the worker may send that many more. */
export interface CreditMessage {
  type: 'credit';
  id: number;
  pieces: number;
}

export interface CancelMessage {
  type: 'cancel';
  id: number;
}

export interface ShutdownMessage {
  type: 'shutdown';
}

/** Count the prompt's tokens as `generate` would evaluate them (messages under the chat template, a raw prompt as it is). */
export type CountMessage = WorkerPrompt & {
  type: 'count';
  id: number;
};

export type ParentMessage = InitMessage | GenerateMessage | CreditMessage | CancelMessage | ShutdownMessage | CountMessage;

export interface ReadyMessage {
  type: 'ready';
  loadMs: number;
  contextSize: number;
  trainContextSize: number;
  sequences: number;
  threads: number;
  chatWrapper: string;
}

/** The worker could not start (bad path, unsupported file, ...); it exits after sending this. */
export interface FatalMessage {
  type: 'fatal';
  message: string;
}

export interface StartedMessage {
  type: 'started';
  id: number;
  promptTokens: number;
  /** Prompt tokens whose evaluation was reused from the sequence's previous request. */
  reusedTokens: number;
}

export interface TextMessage {
  type: 'text';
  id: number;
  text: string;
  /** Completion tokens generated up to and including this piece. */
  completionTokens: number;
  /** One entry per token of this piece, when log probabilities were asked for. */
  logprobs?: WorkerTokenLogprob[];
}

export type WorkerStopReason = 'eos' | 'length' | 'cancelled';

export interface DoneMessage {
  type: 'done';
  id: number;
  reason: WorkerStopReason;
  promptTokens: number;
  completionTokens: number;
  generateMs: number;
}

export type FailureCode = 'prompt_too_long' | 'bad_grammar' | 'busy' | 'internal';

export interface FailedMessage {
  type: 'failed';
  id: number;
  code: FailureCode;
  message: string;
  /** For `prompt_too_long`: the prompt's tokens and the context size. */
  promptTokens?: number;
  contextTokens?: number;
}

/** A llama.cpp log line at warn level or above (never contains prompts or output). */
export interface LogMessage {
  type: 'log';
  level: string;
  message: string;
}

/** The answer to a `count`: the prompt's tokens (null: it could not be counted). */
export interface CountedMessage {
  type: 'counted';
  id: number;
  promptTokens: number | null;
}

export type WorkerMessage = ReadyMessage | FatalMessage | StartedMessage | TextMessage | DoneMessage | FailedMessage | LogMessage | CountedMessage;
