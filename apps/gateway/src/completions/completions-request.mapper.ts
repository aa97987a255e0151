import { RawCompletionParams, rawPromptRefusals } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { ChatFieldsBody, chatRequestSchema, toGenerationParams } from '../chat/chat-request.dto';
import { mergeSvcParameters, parseModelSuffix } from '../chat/svc-parameters';
import { CompletionsRequestBody, completionsRequestSchema, DEFAULT_MAX_TOKENS } from './completions-request.dto';

/** The one text prompt of a valid body (the schema refuses token ids and more than one). */
export function promptText(body: Pick<CompletionsRequestBody, 'prompt'>): string {
  return typeof body.prompt === 'string' ? body.prompt : String(body.prompt[0]);
}

/** What the chat pipeline runs for a completions body: the model and svc_parameters as chat resolves them, and the raw completion. */
export interface RawCompletionRequest {
  model: string;
  svc_parameters: ChatFieldsBody['svc_parameters'];
  /** The raw completion the chat service runs on the resolved model. */
  params(modelId: string): RawCompletionParams;
}

/** Fields this API does not know, nor chat: they go on to upstream engines as on chat. Chat-only fields (messages, tools, ...) stay behind. */
function unknownFields(body: CompletionsRequestBody): Record<string, unknown> {
  const known = new Set([...Object.keys(completionsRequestSchema.shape), ...Object.keys(chatRequestSchema.shape)]);
  return Object.fromEntries(Object.entries(body).filter(([key]) => !known.has(key)));
}

/**
 * The service's system prompt is off unless the caller names it (body or model suffix), and
 * naming it on is refused below: a raw prompt has no system message to put it in.
 */
function svcParametersOf(body: CompletionsRequestBody): ChatFieldsBody['svc_parameters'] {
  const named = 'include_svc_system_prompt' in parseModelSuffix(body.model).parameters || body.svc_parameters?.include_svc_system_prompt !== undefined;
  return named ? body.svc_parameters : { include_svc_system_prompt: false, ...body.svc_parameters };
}

/**
 * A 400 for every svc_parameter that would add to the prompt (the service's system prompt, a
 * character, the no-think instruction, web context), in the body or the model suffix: before any
 * credit is held, as the chat service would refuse it (rawPromptRefusals).
 */
function refuseWhatAddsToThePrompt(model: string, svc: ChatFieldsBody['svc_parameters']): void {
  const refusals = rawPromptRefusals(mergeSvcParameters(parseModelSuffix(model).parameters, svc));
  if (refusals.length) throw DomainError.validation(refusals.map(({ name, message }) => ({ path: ['svc_parameters', name], message })));
}

/**
 * The request's chat fields: the same model, sampling, stop sequences and choices as a chat
 * request has them (`logprobs: k` is chat's `logprobs: true, top_logprobs: k`; `max_tokens`
 * defaults to 16), so it runs on the chat pipeline like any chat request.
 */
function toChatFields(body: CompletionsRequestBody): ChatFieldsBody {
  // Unknown fields first, so ours win; assigned onto them (a fresh object), not spread.
  return Object.assign(unknownFields(body), {
    model: body.model,
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
  });
}

/**
 * A completions request as the raw completion it is: the prompt, as sent, for the model to continue
 * (no chat template, nothing added), with chat's fields. Throws the 400 for a svc_parameter that
 * would add to the prompt.
 */
export function toRawCompletionRequest(body: CompletionsRequestBody): RawCompletionRequest {
  const fields = toChatFields(body);
  refuseWhatAddsToThePrompt(body.model, fields.svc_parameters);
  const prompt = promptText(body);
  return { model: fields.model, svc_parameters: fields.svc_parameters, params: (modelId) => ({ ...toGenerationParams(fields, modelId), prompt }) };
}
