import { ChatRequestBody, chatRequestSchema } from '../chat/chat-request.dto';
import { parseModelSuffix } from '../chat/svc-parameters';
import { CompletionsRequestBody, completionsRequestSchema, DEFAULT_MAX_TOKENS } from './completions-request.dto';

/** The one text prompt of a valid body (the schema refuses token ids and more than one). */
export function promptText(body: Pick<CompletionsRequestBody, 'prompt'>): string {
  return typeof body.prompt === 'string' ? body.prompt : String(body.prompt[0]);
}

/** Fields this API does not know, nor chat: they go on to upstream engines as on chat. Chat-only fields (messages, tools, ...) stay behind. */
function unknownFields(body: CompletionsRequestBody): Record<string, unknown> {
  const known = new Set([...Object.keys(completionsRequestSchema.shape), ...Object.keys(chatRequestSchema.shape)]);
  return Object.fromEntries(Object.entries(body).filter(([key]) => !known.has(key)));
}

/**
 * The service's system prompt is off unless the caller turns it on (body or model suffix): a
 * legacy completions client sends the whole text it wants the model to see.
 */
function svcParametersOf(body: CompletionsRequestBody): ChatRequestBody['svc_parameters'] {
  const named = 'include_svc_system_prompt' in parseModelSuffix(body.model).parameters || body.svc_parameters?.include_svc_system_prompt !== undefined;
  return named ? body.svc_parameters : { include_svc_system_prompt: false, ...body.svc_parameters };
}

/**
 * The chat completion request a completions request is: the prompt as one user message, with the
 * same model, sampling, stop sequences and choices, so it runs on the chat pipeline like any chat
 * request. `logprobs: k` is chat's `logprobs: true, top_logprobs: k`; `max_tokens` defaults to 16.
 */
export function toChatRequest(body: CompletionsRequestBody): ChatRequestBody {
  return {
    ...unknownFields(body),
    model: body.model,
    messages: [{ role: 'user', content: promptText(body) }],
    max_tokens: body.max_tokens ?? DEFAULT_MAX_TOKENS,
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { top_p: body.top_p } : {}),
    ...(body.n != null ? { n: body.n } : {}),
    ...(body.stop != null ? { stop: body.stop } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    ...(body.presence_penalty != null ? { presence_penalty: body.presence_penalty } : {}),
    ...(body.frequency_penalty != null ? { frequency_penalty: body.frequency_penalty } : {}),
    ...(body.repetition_penalty != null ? { repetition_penalty: body.repetition_penalty } : {}),
    ...(body.top_k != null ? { top_k: body.top_k } : {}),
    ...(body.min_p != null ? { min_p: body.min_p } : {}),
    ...(body.logprobs != null ? { logprobs: true, top_logprobs: body.logprobs } : {}),
    ...(body.fallbacks?.length ? { fallbacks: body.fallbacks } : {}),
    ...(body.stream ? { stream: true } : {}),
    ...(body.stream && body.stream_options?.include_usage ? { stream_options: { include_usage: true } } : {}),
    svc_parameters: svcParametersOf(body),
    ...(body.prompt_cache_key ? { prompt_cache_key: body.prompt_cache_key } : {}),
    ...(body.user ? { user: body.user } : {}),
  };
}
