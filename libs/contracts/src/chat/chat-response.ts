import { WebSearchResult } from '../augment/subjects';
import { ToolCall } from './chat-request';
import { SvcParameters } from './svc-parameters';

/**
 * The echoed `svc_parameters` of a response: the effective parameters, plus the sources of a web
 * search or scrape (`web_search_citations`, the reference's shape) when any were used.
 */
export type SvcParametersEcho = SvcParameters & { web_search_citations?: WebSearchResult[] };

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens whose evaluation was reused from an earlier request (prefix/KV cache). */
  prompt_tokens_details?: { cached_tokens: number };
}

/** OpenAI's per-token log probabilities (`choices[].logprobs`). */
export interface ChoiceLogprobs {
  content: Array<{
    token: string;
    logprob: number;
    bytes: number[] | null;
    top_logprobs: Array<{ token: string; logprob: number; bytes: number[] | null }>;
  }> | null;
  refusal?: null;
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ToolCall[] };
    logprobs: ChoiceLogprobs | null;
    finish_reason: FinishReason;
  }>;
  usage: Usage;
  system_fingerprint?: string | null;
  /** The effective svc_parameters of the request (on the first chunk of a stream). */
  svc_parameters?: SvcParametersEcho;
  /** Service to gateway only (upstream-retries.ts): model-server retries, sent as `x-retry-count`. */
  upstreamRetries?: number;
}

/**
 * A streamed piece of a tool call, as OpenAI streams them: the first piece of call `index` carries
 * its `id`, `type` and `function.name` (with empty arguments), later pieces add `function.arguments`.
 */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string | null; tool_calls?: ToolCallDelta[] };
    logprobs: ChoiceLogprobs | null;
    finish_reason: FinishReason | null;
  }>;
  usage?: Usage | null;
  system_fingerprint?: string | null;
  /** The effective svc_parameters of the request (on the first chunk of a stream). */
  svc_parameters?: SvcParametersEcho;
  /** `include_search_results_in_stream`: the web sources, on a first chunk of their own (`choices: []`). */
  svc_search_results?: WebSearchResult[];
  /** Service to gateway only, on the first chunk (upstream-retries.ts): sent as `x-retry-count`. */
  upstreamRetries?: number;
}
