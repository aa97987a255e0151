import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { characterSlugSchema } from '../characters/schemas';
import { callerContextSchema } from '../schemas/caller';
import { modelIdSchema, streamOpenRequestSchema } from '../schemas/wire';
import { rawPromptRefusals, WEB_SEARCH_MODES } from './svc-parameters';
import { WEB_CONTEXT_MAX_BYTES } from './subjects';

// Pieces of the chat request, shared by the gateway's `POST /chat/completions` body and the
// chat service's messages (chat.cmd.complete, chat.stream.complete).

/** Content parts: which ones a model takes is checked by the chat service against the catalog (docs/chat.md). */
export const contentPartSchema = z.discriminatedUnion(
  'type',
  [
    z.looseObject({ type: z.literal('text'), text: z.string() }),
    z.looseObject({ type: z.literal('image_url'), image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }) }),
    z.looseObject({ type: z.literal('input_audio'), input_audio: z.looseObject({ data: z.string().min(1), format: z.string().min(1) }) }),
    z.looseObject({ type: z.literal('video_url'), video_url: z.looseObject({ url: z.string().min(1) }) }),
  ],
  { message: 'Content part type must be one of text, image_url, input_audio, video_url' },
);

export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

export const toolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

export const functionNameSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'Function names are 1-64 letters, digits, _ or -');

export const toolSchema = z.object({
  type: z.literal('function'),
  function: z.looseObject({
    name: functionNameSchema,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: functionNameSchema }) }),
]);

export const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

const flag = z.boolean({ message: 'must be a boolean (true or false)' });

/**
 * `svc_parameters` of a chat request: every field optional; booleans must be JSON booleans.
 * Unknown keys are dropped (the spec lets undocumented fields through unvalidated), unlike the
 * model suffix, where an unknown name is a 400: a typo there would otherwise go unnoticed.
 */
export const svcParametersSchema = z.object({
  character_slug: characterSlugSchema.optional(),
  strip_thinking_response: flag.optional(),
  disable_thinking: flag.optional(),
  enable_web_search: z.enum(WEB_SEARCH_MODES, { message: `must be one of ${WEB_SEARCH_MODES.join(', ')}` }).optional(),
  enable_web_scraping: flag.optional(),
  enable_x_search: flag.optional(),
  enable_web_citations: flag.optional(),
  include_search_results_in_stream: flag.optional(),
  return_search_results_as_documents: flag.optional(),
  include_svc_system_prompt: flag.optional(),
});

/** The effective `svc_parameters` the chat service receives: every flag decided (defaults filled in by the gateway). */
export const effectiveSvcParametersSchema = z.looseObject({
  character_slug: characterSlugSchema.optional(),
  strip_thinking_response: z.boolean(),
  disable_thinking: z.boolean(),
  enable_web_search: z.enum(WEB_SEARCH_MODES),
  enable_web_scraping: z.boolean(),
  enable_x_search: z.boolean(),
  enable_web_citations: z.boolean(),
  include_search_results_in_stream: z.boolean(),
  return_search_results_as_documents: z.boolean(),
  include_svc_system_prompt: z.boolean(),
});

/** A message as the chat service receives it (`ChatMessage`): text content, the parts kept when any is not text. */
const chatMessageSchema = z.looseObject({
  role: z.enum(CHAT_ROLES),
  content: z.string(),
  name: z.string().max(256).optional(),
  parts: z.array(contentPartSchema).optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  tool_call_id: z.string().min(1).optional(),
});

/** What every text request sets besides its prompt (`TextGenerationParams`). */
const textGenerationShape = {
  model: modelIdSchema,
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  stop: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  n: z.number().int().min(1).max(8).optional(),
  response_format: responseFormatSchema.optional(),
  tools: z.array(toolSchema).max(128).optional(),
  tool_choice: toolChoiceSchema.optional(),
  fallbacks: z.array(modelIdSchema).max(4).optional(),
  stream: z.boolean().optional(),
  svc_parameters: effectiveSvcParametersSchema.optional(),
};

/** `ChatCompletionParams`: what the gateway made of the body (nulls dropped, suffix merged, model resolved). */
export const chatCompletionParamsSchema = z.looseObject({
  ...textGenerationShape,
  messages: z.array(chatMessageSchema).min(1),
  prompt: z.undefined({ message: 'a request has messages or a prompt, not both' }).optional(),
});

const notWithRawPrompt = (what: string) => z.undefined({ message: `${what} a chat template, which a raw prompt does not have` }).optional();

/** `RawCompletionParams`: the prompt, continued as it is; nothing that needs a chat template. */
export const rawCompletionParamsSchema = z
  .looseObject({
    ...textGenerationShape,
    prompt: z.string().min(1),
    messages: z.undefined({ message: 'a request has messages or a prompt, not both' }).optional(),
    tools: notWithRawPrompt('tools need'),
    tool_choice: notWithRawPrompt('tool_choice needs'),
  })
  .superRefine((params, ctx) => {
    for (const { name, message } of rawPromptRefusals(params.svc_parameters)) ctx.addIssue({ code: 'custom', path: ['svc_parameters', name], message });
  });

/**
 * `TextCompletionParams`: a request with a `prompt` is a raw completion, any other a chat request.
 * Each is checked by its own schema (not a union's), so a refusal names the field.
 */
export const textCompletionParamsSchema = z
  .unknown()
  .transform((value, ctx): z.output<typeof chatCompletionParamsSchema> | z.output<typeof rawCompletionParamsSchema> => {
    const raw = typeof value === 'object' && value !== null && (value as { prompt?: unknown }).prompt !== undefined;
    const parsed = (raw ? rawCompletionParamsSchema : chatCompletionParamsSchema).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  });

/** `chat.cmd.complete` (CompleteChatRequest). */
export const completeChatRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: textCompletionParamsSchema,
  billing: requestBillingSchema.optional(),
  webContextMaxBytes: z.number().int().nonnegative().max(WEB_CONTEXT_MAX_BYTES).optional(),
});
/** `chat.query.count-prompt` (CountPromptRequest). */
export const countPromptRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: textCompletionParamsSchema,
});
/** `chat.stream.complete` (StreamChatRequest). */
export const streamChatRequestSchema = completeChatRequestSchema.extend({ stream: streamOpenRequestSchema });
