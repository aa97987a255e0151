import { z } from 'zod';
import { ChatCompletionParams, ChatMessage } from '@svc/contracts';

const textPart = z.object({ type: z.literal('text'), text: z.string() }).passthrough();
const otherPart = z
  .object({ type: z.string() })
  .passthrough()
  .refine((p) => p.type === 'text', { message: 'Only text content parts are supported by this server for now' });

const message = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(z.union([textPart, otherPart])).min(1), z.null()]),
    name: z.string().max(256).optional(),
  })
  .passthrough();

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
    n: z.literal(1, { message: 'Only n=1 is supported' }).nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    svc_parameters: z.record(z.string(), z.unknown()).optional(),
    prompt_cache_key: z.string().optional(),
    user: z.string().optional(),
  })
  .passthrough();

export type ChatRequestBody = z.infer<typeof chatRequestSchema>;

function textOf(content: z.infer<typeof message>['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part as { text?: string }).text ?? '').join('');
}

/** The typed parameters the chat service receives. */
export function toChatParams(body: ChatRequestBody, modelId: string): ChatCompletionParams {
  const messages: ChatMessage[] = body.messages.map((m) => ({ role: m.role, content: textOf(m.content), ...(m.name ? { name: m.name } : {}) }));
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  return {
    model: modelId,
    messages,
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { top_p: body.top_p } : {}),
    ...(body.stop != null ? { stop: typeof body.stop === 'string' ? [body.stop] : body.stop } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    ...(body.stream ? { stream: true } : {}),
    ...(body.stream_options?.include_usage ? { stream_options: { include_usage: true } } : {}),
    ...(body.svc_parameters ? { svc_parameters: body.svc_parameters } : {}),
    ...(body.prompt_cache_key ? { prompt_cache_key: body.prompt_cache_key } : {}),
  };
}
