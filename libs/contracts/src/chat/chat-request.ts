import { SvcParameters } from './svc-parameters';

/** The OpenAI-compatible chat request, as validated by the gateway and passed to the chat service. */
export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: ChatRole;
  /** Text content; array-of-parts content is flattened to its text parts by the gateway. */
  content: string;
  name?: string;
  /** The original parts when the content had any non-text part (images, audio, video); see docs/chat.md. */
  parts?: ContentPart[];
  /** An assistant turn that called tools. */
  tool_calls?: ToolCall[];
  /** A `tool` message: the id of the call it answers. */
  tool_call_id?: string;
}

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } }
  | { type: 'video_url'; video_url: { url: string } };
export type ContentPartType = ContentPart['type'];

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null } };

/** Sampling and output options OpenAI clients send (request features, docs/chat.md). */
export interface ChatFeatureParams {
  n?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  repetition_penalty?: number;
  top_k?: number;
  min_p?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  response_format?: ResponseFormat;
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  /** Models tried in order when the requested one fails before answering (`fallbacks: [{model}]`). */
  fallbacks?: string[];
  /** Request fields this API does not know: sent on to upstream engines, ignored by embedded ones. */
  passthrough?: Record<string, unknown>;
}

/** What a text request sets besides its prompt: the model, sampling, output options, svc_parameters. */
export interface TextGenerationParams extends ChatFeatureParams {
  model: string;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  seed?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  /** The effective svc_parameters (validated, suffix merged, defaults filled in by the gateway). */
  svc_parameters?: SvcParameters;
  prompt_cache_key?: string;
  user?: string;
}

/** A chat request: `messages` under the model's chat template; the answer is the assistant's turn. */
export interface ChatCompletionParams extends TextGenerationParams {
  messages: ChatMessage[];
  prompt?: never;
}

/**
 * A raw completion (POST /completions): `prompt` is tokenized as it is (with the begin-of-text
 * token where the model expects one, no chat template) and the model continues it. Nothing is
 * added to it, so the svc_parameters that add to a prompt are refused with it
 * (`rawPromptRefusals`), as are tools.
 */
export interface RawCompletionParams extends TextGenerationParams {
  prompt: string;
  messages?: never;
}

/** What chat.cmd.complete, chat.stream.complete and chat.query.count-prompt run: a chat request or a raw completion. */
export type TextCompletionParams = ChatCompletionParams | RawCompletionParams;

export const isRawCompletion = (params: TextCompletionParams): params is RawCompletionParams => typeof params.prompt === 'string';
