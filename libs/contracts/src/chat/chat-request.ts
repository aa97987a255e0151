/** The OpenAI-compatible chat request, as validated by the gateway and passed to the chat service. */
export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: ChatRole;
  /** Text content; array-of-parts content is flattened to its text parts by the gateway. */
  content: string;
  name?: string;
}

export interface ChatCompletionParams {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  seed?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  /** Fields the spec passes through without validation (`svc_parameters`, `prompt_cache_key`, ...). */
  svc_parameters?: Record<string, unknown>;
  prompt_cache_key?: string;
  user?: string;
}
