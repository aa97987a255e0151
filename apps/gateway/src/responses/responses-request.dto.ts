import { z } from 'zod';
import { functionNameSchema, responseFormatSchema, svcParametersSchema, withinInlineBudget } from '@svc/contracts';

// POST /responses, as OpenAI's Responses API and the reference (upstream-openapi.yaml) describe it,
// stateless. responses-request.mapper.ts turns it into a chat completion request.

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const withoutType = (v: Record<string, unknown>) => Object.fromEntries(Object.entries(v).filter(([key]) => key !== 'type'));

const STATELESS = 'This API is stateless and stores no responses or conversations: send the whole conversation in `input`.';

/** A field that needs stored state: absent or null, else a 400 saying why. */
const stateful = (what: string) =>
  z
    .unknown()
    .refine((v) => v === null || v === false, { message: `${what} cannot be used. ${STATELESS}` })
    .optional();

const imageUrl = z.union([z.string().min(1), z.looseObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() })]);

const contentPart = z.discriminatedUnion(
  'type',
  [
    z.looseObject({ type: z.literal('input_text'), text: z.string() }),
    z.looseObject({ type: z.literal('output_text'), text: z.string() }),
    z.looseObject({ type: z.literal('text'), text: z.string() }),
    z.looseObject({ type: z.literal('refusal'), refusal: z.string() }),
    z.looseObject({
      type: z.literal('input_image'),
      image_url: imageUrl.nullish(),
      detail: z.enum(['auto', 'low', 'high']).optional(),
      file_id: stateful('file_id (uploaded files)'),
    }),
    z.looseObject({ type: z.literal('image_url'), image_url: imageUrl }),
  ],
  { message: 'Content part type must be one of input_text, input_image, output_text, text, image_url, refusal' },
);

const messageItem = z.looseObject({
  type: z.literal('message'),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  // A string is one input_text part (as for `input`: a union would hide the parts' own errors).
  content: z.preprocess((v) => (typeof v === 'string' ? [{ type: 'input_text', text: v }] : v), z.array(contentPart)),
});

const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: functionNameSchema,
  arguments: z.string(),
});

const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]),
});

/** Reasoning from an earlier answer: accepted in the history and left out of the prompt. */
const reasoningItem = z.looseObject({ type: z.literal('reasoning') });

const itemReference = z.looseObject({ type: z.literal('item_reference'), id: z.unknown() }).superRefine((_, ctx) => {
  ctx.addIssue({ code: 'custom', path: ['type'], message: `item_reference cannot be used. ${STATELESS}` });
});

/** An easy input message (`{role, content}`) has no `type`: it is a message item. */
const inputItem = z.preprocess(
  (v) => (isObject(v) && v.type === undefined && 'role' in v ? { ...v, type: 'message' } : v),
  z.discriminatedUnion('type', [messageItem, functionCallItem, functionCallOutputItem, reasoningItem, itemReference], {
    message: 'Input item type must be one of message, function_call, function_call_output, reasoning',
  }),
);

/** OpenAI's flat function tool (`{type, name, parameters}`), or the reference's nested one (`{type, function}`). */
const functionFields = z.looseObject({
  name: functionNameSchema,
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
const tool = z.preprocess(
  (v) => (isObject(v) && v.type === 'function' && !('function' in v) ? { type: 'function', function: withoutType(v) } : v),
  z.object({
    type: z.literal('function', { message: 'Only function tools are supported (for web search, set svc_parameters.enable_web_search)' }),
    function: functionFields,
  }),
);

const toolChoice = z.preprocess(
  (v) => (isObject(v) && v.type === 'function' && !('function' in v) ? { type: 'function', function: { name: v.name } } : v),
  z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: functionNameSchema }) })], {
    message: 'tool_choice must be none, auto, required or {"type": "function", "name": ...}',
  }),
);

/** `text.format`: the chat API's response_format with the json_schema fields at the top. */
const textFormat = z.preprocess(
  (v) => (isObject(v) && v.type === 'json_schema' && !('json_schema' in v) ? { type: 'json_schema', json_schema: withoutType(v) } : v),
  responseFormatSchema,
);

export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** POST /responses. Unknown fields are accepted and ignored (docs/responses.md). */
export const responsesRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    // A string is one user message (a union would hide the items' own errors behind "Invalid input").
    input: z.preprocess((v) => (typeof v === 'string' ? [{ type: 'message', role: 'user', content: v }] : v), z.array(inputItem).min(1)),
    instructions: z.string().nullish(),
    tools: z.array(tool).max(128).nullish(),
    tool_choice: toolChoice.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    text: z.looseObject({ format: textFormat.optional() }).nullish(),
    reasoning: z.looseObject({ effort: z.enum(REASONING_EFFORTS).nullish(), summary: z.enum(['auto', 'concise', 'detailed']).nullish() }).nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().gt(0).max(1).nullish(),
    seed: z.number().int().nullish(),
    stream: z.boolean().nullish(),
    store: z.boolean().nullish(),
    metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
    include: z.array(z.string()).nullish(),
    truncation: z.enum(['auto', 'disabled']).nullish(),
    user: z.string().optional(),
    prompt_cache_key: z.string().optional(),
    fallbacks: z
      .array(z.looseObject({ model: z.string().min(1) }))
      .max(4)
      .nullish(),
    web_search: z.boolean().nullish(),
    svc_parameters: svcParametersSchema.optional(),
    previous_response_id: stateful('previous_response_id'),
    conversation: stateful('conversation'),
    prompt: stateful('prompt (stored prompt templates)'),
    background: stateful('background: true'),
  })
  .superRefine(withinInlineBudget());

export type ResponsesRequestBody = z.infer<typeof responsesRequestSchema>;
export type ResponsesInputItem = ResponsesRequestBody['input'][number];
export type ResponsesContentPart = z.infer<typeof contentPart>;
