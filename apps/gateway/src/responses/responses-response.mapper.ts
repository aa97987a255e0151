import { randomBytes } from 'node:crypto';
import { ChatCompletion, Usage } from '@svc/contracts';
import { ResponseCost } from '../admission/admission.types';
import { ResponsesRequestBody } from './responses-request.dto';
import { ThinkSplitter } from './think-splitter';
import { FunctionCallItem, MessageItem, OutputItem, ReasoningItem, ResponseObject, ResponseUsage } from './responses.types';

/** `resp_…`, `msg_…`, `fc_…`, `rs_…`: random, never reused (nothing is stored to look them up). */
export const newId = (prefix: 'resp' | 'msg' | 'fc' | 'rs'): string => `${prefix}_${randomBytes(12).toString('hex')}`;

/** What identifies one response: its id, when it began, and the model that ran it. */
export interface ResponseIdentity {
  id: string;
  createdAt: number;
  model: string;
}

/**
 * The response before any output: the request's settings echoed as OpenAI echoes them (tools in
 * the Responses shape), `store: false` because nothing is stored, status `in_progress`. No `usage`
 * until there is one: OpenAI's schema types it as an object, so null would break it.
 */
export function responseShell(request: ResponsesRequestBody, identity: ResponseIdentity): ResponseObject {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    model: identity.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: false,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ? textFormatOf(request.text.format) : { type: 'text' } },
    tool_choice: toolChoiceOf(request.tool_choice),
    tools: (request.tools ?? []).map((t) => ({
      type: 'function',
      name: t.function.name,
      description: t.function.description ?? null,
      parameters: t.function.parameters ?? null,
      strict: t.function.strict ?? null,
    })),
    top_p: request.top_p ?? null,
    truncation: request.truncation ?? 'disabled',
    ...(request.user ? { user: request.user } : {}),
  };
}

function textFormatOf(format: NonNullable<NonNullable<ResponsesRequestBody['text']>['format']>): Record<string, unknown> {
  return format.type === 'json_schema' ? { type: 'json_schema', ...format.json_schema } : format;
}

function toolChoiceOf(choice: ResponsesRequestBody['tool_choice']): unknown {
  if (choice == null) return 'auto';
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.function.name };
}

export function toResponseUsage(usage: Pick<Usage, 'prompt_tokens' | 'completion_tokens' | 'total_tokens' | 'prompt_tokens_details'>): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    // Prefix-cache reuse when the engine reports it; what a request writes to the cache is not counted.
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0, cache_write_tokens: 0 },
    output_tokens: usage.completion_tokens,
    // Reasoning is not counted apart from the answer: its tokens are in output_tokens.
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  };
}

/** A chat finish reason as the response's status: cut by the token cap or a filter is `incomplete`. */
export function finishOf(finishReason: string | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export const messageItem = (text: string, status: MessageItem['status'], id = newId('msg')): MessageItem => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

export const reasoningItem = (text: string, status: ReasoningItem['status'], id = newId('rs')): ReasoningItem => ({
  type: 'reasoning',
  id,
  status,
  summary: [],
  content: [{ type: 'reasoning_text', text }],
});

/**
 * A chat completion as a response: a reasoning item when the model thought aloud, a message item
 * with the answer (always, when there is no function call: an empty answer is an empty text), and
 * one function_call item per tool call.
 */
export function toResponse(completion: ChatCompletion, request: ResponsesRequestBody, id: string, cost: ResponseCost | undefined): ResponseObject {
  const choice = completion.choices[0];
  const finish = finishOf(choice.finish_reason);
  const itemStatus = finish.status === 'incomplete' ? 'incomplete' : 'completed';
  const pieces = ThinkSplitter.split(choice.message.content ?? '');
  const reasoning = pieces.filter((p) => p.kind === 'reasoning').map((p) => p.text);
  const text = pieces
    .filter((p) => p.kind === 'text')
    .map((p) => p.text)
    .join('');
  const calls = choice.message.tool_calls ?? [];
  const output: OutputItem[] = [];
  if (reasoning.length) output.push(reasoningItem(reasoning.join(''), itemStatus));
  if (text || !calls.length) output.push(messageItem(text, itemStatus));
  for (const call of calls)
    output.push({
      type: 'function_call',
      id: newId('fc'),
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: 'completed',
    } satisfies FunctionCallItem);
  return Object.assign(
    {},
    responseShell(request, { id, createdAt: completion.created, model: completion.model }),
    finish,
    { output, usage: toResponseUsage(completion.usage) },
    cost ? { cost } : {},
  );
}
