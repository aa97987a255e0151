import { SvcParametersEcho, Usage } from '@svc/contracts';
import { ResponseCost } from '../admission/admission.types';

// OpenAI's legacy text completion objects (CreateCompletionResponse) as this gateway sends them.

/** The legacy per-token log probabilities: parallel lists, the alternatives as `{token: logprob}`. */
export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Array<Record<string, number>>;
  text_offset: number[];
}

export type CompletionFinishReason = 'stop' | 'length' | 'content_filter';

export interface CompletionChoice {
  text: string;
  index: number;
  logprobs: CompletionLogprobs | null;
  finish_reason: CompletionFinishReason | null;
}

/** The body, and each streamed chunk (the same shape, as OpenAI's are): `cost` and `svc_parameters` are this API's own, as on chat. */
export interface TextCompletion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage?: Usage | null;
  /** Only when the completion has one: never null (OpenAI's schema types it as a string). */
  system_fingerprint?: string;
  svc_parameters?: SvcParametersEcho;
  cost?: ResponseCost;
}
