import { ChatMessage, ChoiceLogprobs, ToolCall, ToolChoice, ToolDefinition } from '@svc/contracts';

/**
 * Output constraint for the embedded engine: any JSON object, or JSON matching a schema
 * (enforced with a llama.cpp grammar, so the text always parses).
 */
export type OutputConstraint = { kind: 'json_object' } | { kind: 'json_schema'; schema: Record<string, unknown> };

/**
 * What the model is given: chat messages, under its chat template (the answer is the assistant's
 * turn), or a raw prompt, tokenized as it is (its begin-of-text token where the model expects one,
 * no template) and continued (POST /completions).
 */
export type PromptInput = { messages: ChatMessage[]; prompt?: undefined } | { prompt: string; messages?: undefined };

/** One generation, engine-agnostic. Counts are in the engine's own tokens. */
export type GenerateRequest = PromptInput & GenerateOptions;

/** A generation's options, whatever its prompt. */
export interface GenerateOptions {
  maxTokens: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  repetitionPenalty?: number;
  stop?: string[];
  seed?: number;
  /** Per-token log probabilities; `topLogprobs` alternatives per token (0-20). */
  logprobs?: boolean;
  topLogprobs?: number;
  /** The caller's `response_format`, as the engine should honour it. */
  output?: OutputConstraint;
  /** The raw `response_format` (upstream engines pass it on as sent). */
  responseFormat?: unknown;
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** `prompt_cache_key`: the same key goes to the same upstream endpoint / engine sequence. */
  cacheKey?: string;
  /** Called once per retried model-server attempt (upstream engines: connect errors, 502/503 before any byte). */
  onUpstreamRetry?: () => void;
  /** Fields this API does not know, for upstream engines only. */
  passthrough?: Record<string, unknown>;
  /** Aborted when the caller goes away: the engine must stop generating promptly. */
  signal: AbortSignal;
}

export interface GenerateResult {
  text: string;
  finishReason: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from a cache (the embedded engine's reused KV prefix, or the upstream's report). */
  cachedTokens?: number;
  toolCalls?: ToolCall[];
  logprobs?: ChoiceLogprobs | null;
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
  /**
   * The prompt tokens `generate` would count for these messages (chat template included) or this
   * raw prompt (as it is run), or null when they cannot be counted exactly. Engines without a
   * tokenizer leave it out.
   */
  countPromptTokens?(prompt: ChatMessage[] | string): Promise<number | null>;
  close(): Promise<void>;
}

/** Thrown by `generate` when `signal` aborted: the caller is gone, so nobody sees this error. */
export class GenerationAbortedError extends Error {
  override name = 'GenerationAbortedError';
}
