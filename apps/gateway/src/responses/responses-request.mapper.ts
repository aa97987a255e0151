import { ChatRequestBody } from '../chat/chat-request.dto';
import { ResponsesContentPart, ResponsesInputItem, ResponsesRequestBody } from './responses-request.dto';

type ChatMessageBody = ChatRequestBody['messages'][number];
type ChatPart = Extract<ChatMessageBody['content'], unknown[]>[number];

function toChatPart(part: ResponsesContentPart): ChatPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image':
    case 'image_url': {
      const image = part.image_url;
      const url = typeof image === 'string' ? image : (image?.url ?? '');
      const detail = (typeof image === 'object' ? image?.detail : undefined) ?? (part.type === 'input_image' ? part.detail : undefined);
      return { type: 'image_url', image_url: { url, ...(detail ? { detail } : {}) } };
    }
  }
}

/** A function call's output as the tool message's text: strings as they are, text parts joined, anything else as JSON. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output) && output.every((p) => typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string'))
    return output.map((p: { text: string }) => p.text).join('');
  return JSON.stringify(output ?? null);
}

/** Appends one input item to the chat messages: consecutive function calls join the assistant turn before them. */
function addItem(messages: ChatMessageBody[], item: ResponsesInputItem): void {
  switch (item.type) {
    case 'message':
      messages.push({ role: item.role, content: item.content.map(toChatPart) });
      return;
    case 'function_call': {
      const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      return;
    }
    case 'function_call_output':
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) });
      return;
    case 'reasoning':
    case 'item_reference': // refused by the schema
      return;
  }
}

/** `instructions` and `input` as chat messages: instructions first, as a system message. */
export function toChatMessages(body: Pick<ResponsesRequestBody, 'instructions' | 'input'>): ChatMessageBody[] {
  const messages: ChatMessageBody[] = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  for (const item of body.input) addItem(messages, item);
  return messages;
}

/** `web_search: true` is svc_parameters.enable_web_search "on" (the reference's shortcut). */
function svcParametersOf(body: ResponsesRequestBody): ChatRequestBody['svc_parameters'] {
  if (!body.web_search) return body.svc_parameters;
  return { ...body.svc_parameters, enable_web_search: 'on' };
}

/**
 * The chat completion request a Responses request is: the same model, sampling and tools, so it
 * runs on the chat pipeline (ChatPipeline) like any chat request. Fields with no chat meaning
 * (store, include, metadata, truncation) stay behind; `reasoning.effort` goes on to upstream
 * engines as `reasoning_effort`.
 */
export function toChatRequest(body: ResponsesRequestBody): ChatRequestBody {
  const format = body.text?.format;
  const effort = body.reasoning?.effort;
  const svc = svcParametersOf(body);
  return {
    model: body.model,
    messages: toChatMessages(body),
    ...(body.max_output_tokens != null ? { max_completion_tokens: body.max_output_tokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { top_p: body.top_p } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    ...(body.tools?.length ? { tools: body.tools.map((t) => ({ type: 'function' as const, function: withoutNulls(t.function) })) } : {}),
    ...(body.tool_choice != null ? { tool_choice: body.tool_choice } : {}),
    ...(body.parallel_tool_calls != null ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
    ...(format ? { response_format: format } : {}),
    ...(body.fallbacks?.length ? { fallbacks: body.fallbacks } : {}),
    ...(body.stream ? { stream: true } : {}),
    ...(svc ? { svc_parameters: svc } : {}),
    ...(body.prompt_cache_key ? { prompt_cache_key: body.prompt_cache_key } : {}),
    ...(body.user ? { user: body.user } : {}),
    ...(effort ? { reasoning_effort: effort } : {}),
  };
}

function withoutNulls<T extends Record<string, unknown>>(fields: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null)) as { [K in keyof T]: Exclude<T[K], null> };
}
