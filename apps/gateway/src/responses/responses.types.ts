import { ResponseCost } from '../admission/admission.types';

// The Responses API's objects as this gateway sends them (OpenAI's `Response`, its output items and
// stream events; the official `openai` SDK's responses.d.ts types them in full).

/** OpenAI's OutputTextContent: `logprobs` is required there; no token log probabilities are sent, so it is empty. */
export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface ReasoningText {
  type: 'reasoning_text';
  text: string;
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface MessageItem {
  type: 'message';
  id: string;
  status: ItemStatus;
  role: 'assistant';
  content: OutputText[];
}

export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  status: ItemStatus;
  summary: never[];
  content: ReasoningText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}

export type OutputItem = MessageItem | ReasoningItem | FunctionCallItem;

export interface ResponseUsage {
  input_tokens: number;
  /** Both required by OpenAI's ResponseUsage; `cache_write_tokens` is not counted by the engines, so 0. */
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** The `response` object; `cost` is this API's own (as on chat completions). */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  model: string;
  output: OutputItem[];
  /** Absent while the response is in progress (stream events before the last). */
  usage?: ResponseUsage;
  cost?: ResponseCost;
  [echoed: string]: unknown;
}

/** A stream event: its type, its place in the stream, and its fields. */
export interface ResponseStreamEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}
