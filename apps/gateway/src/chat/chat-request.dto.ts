import { z } from 'zod';
import {
  CHAT_ROLES,
  ChatCompletionParams,
  ChatFeatureParams,
  ChatMessage,
  ContentPart,
  contentPartSchema,
  responseFormatSchema as responseFormat,
  svcParametersSchema,
  TextGenerationParams,
  toolCallSchema,
  toolChoiceSchema as toolChoice,
  toolSchema as tool,
  withinInlineBudget,
} from '@svc/contracts';

// The pieces (content parts, tools, response formats, svc_parameters) are @svc/contracts', shared with
// the chat service's message schemas; this file adds the body's own shape (nulls, string or parts).
const message = z
  .looseObject({
    role: z.enum(CHAT_ROLES),
    content: z.union([z.string(), z.array(contentPartSchema).min(1), z.null()]).optional(),
    name: z.string().max(256).optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    tool_call_id: z.string().min(1).optional(),
  })
  .refine((m) => m.role !== 'tool' || m.tool_call_id !== undefined, { message: 'A tool message needs tool_call_id', path: ['tool_call_id'] })
  .refine((m) => m.content != null || (m.role === 'assistant' && m.tool_calls?.length), {
    message: 'content is required (it may be null only for an assistant message with tool_calls)',
    path: ['content'],
  });

const stop = z.union([z.string().min(1), z.array(z.string().min(1)).max(4)]).nullable();

/** POST /chat/completions. Undocumented fields pass through unvalidated, as the spec allows. */
export const chatRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(message).min(1),
    max_tokens: z.number().int().positive().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().gt(0).max(1).nullable().optional(),
    stop: stop.optional(),
    seed: z.number().int().nullable().optional(),
    n: z.number().int().min(1).max(8).nullable().optional(),
    presence_penalty: z.number().min(-2).max(2).nullable().optional(),
    frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
    repetition_penalty: z.number().gt(0).max(2).nullable().optional(),
    top_k: z.number().int().min(0).max(1000).nullable().optional(),
    min_p: z.number().min(0).max(1).nullable().optional(),
    logprobs: z.boolean().nullable().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    response_format: responseFormat.nullable().optional(),
    tools: z.array(tool).max(128).nullable().optional(),
    tool_choice: toolChoice.nullable().optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    fallbacks: z
      .array(z.object({ model: z.string().min(1) }).passthrough())
      .max(4)
      .nullable()
      .optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    svc_parameters: svcParametersSchema.optional(),
    prompt_cache_key: z.string().optional(),
    user: z.string().optional(),
  })
  .passthrough()
  .superRefine(withinInlineBudget());

export type ChatRequestBody = z.infer<typeof chatRequestSchema>;

type MessageBody = z.infer<typeof message>;

function textOf(content: MessageBody['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part as { text?: string }).text ?? '').join('');
}

function toMessage(m: MessageBody): ChatMessage {
  const parts = Array.isArray(m.content) && m.content.some((p) => p.type !== 'text') ? (m.content as ContentPart[]) : undefined;
  return {
    role: m.role,
    content: textOf(m.content),
    ...(m.name ? { name: m.name } : {}),
    ...(parts ? { parts } : {}),
    ...(m.tool_calls?.length
      ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: c.type, function: { name: c.function.name, arguments: c.function.arguments } })) }
      : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
  };
}

/** A chat body without its messages: what a route that brings its own prompt (POST /completions) maps the rest of its body to. */
export type ChatFieldsBody = { [K in keyof ChatRequestBody as K extends 'messages' ? never : K]: ChatRequestBody[K] };

/** Request fields outside the schema: sent on to upstream engines (docs/chat.md, "Request features"). */
function passthroughOf(body: ChatFieldsBody): Record<string, unknown> | undefined {
  const known = new Set(Object.keys(chatRequestSchema.shape));
  const extra = Object.entries(body).filter(([key]) => !known.has(key));
  return extra.length ? Object.fromEntries(extra) : undefined;
}

/** Sampling, tool and output options (request features), without nulls. */
function featuresOf(body: ChatFieldsBody): ChatFeatureParams {
  const features: ChatFeatureParams = {};
  const copy = <K extends keyof ChatFeatureParams & keyof ChatFieldsBody>(key: K) => {
    if (body[key] != null) features[key] = body[key] as ChatFeatureParams[K];
  };
  for (const key of [
    'n',
    'presence_penalty',
    'frequency_penalty',
    'repetition_penalty',
    'top_k',
    'min_p',
    'logprobs',
    'top_logprobs',
    'response_format',
    'tools',
    'tool_choice',
    'parallel_tool_calls',
  ] as const)
    copy(key);
  if (body.fallbacks?.length) features.fallbacks = body.fallbacks.map((f) => f.model);
  const passthrough = passthroughOf(body);
  if (passthrough) features.passthrough = passthrough;
  return features;
}

/** The typed parameters the chat service receives. */
export function toChatParams(body: ChatRequestBody, modelId: string): ChatCompletionParams {
  const messages: ChatMessage[] = body.messages.map(toMessage);
  return Object.assign(toGenerationParams(body, modelId), { messages });
}

/** Everything the chat service receives but the prompt: the model, sampling, stop, stream, request features. */
export function toGenerationParams(body: ChatFieldsBody, modelId: string): TextGenerationParams {
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  return {
    model: modelId,
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { top_p: body.top_p } : {}),
    ...(body.stop != null ? { stop: typeof body.stop === 'string' ? [body.stop] : body.stop } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    ...(body.stream ? { stream: true } : {}),
    ...(body.stream_options?.include_usage ? { stream_options: { include_usage: true } } : {}),
    ...(body.prompt_cache_key ? { prompt_cache_key: body.prompt_cache_key } : {}),
    ...featuresOf(body),
  };
}
