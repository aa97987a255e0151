import { ChatMessage } from '@svc/contracts';
import { GenerateRequest } from '../engine';
import { GenerateOptionsMessage, WorkerChatMessage, WorkerPrompt } from './ipc-messages';

/** The prompt of a generate or count message: messages for the chat template, or the raw text. */
export function workerPrompt(prompt: ChatMessage[] | string): WorkerPrompt {
  return typeof prompt === 'string' ? { prompt } : { messages: toWorkerMessages(prompt) };
}

/** The optional sampling, grammar and cache fields of a generate message. */
export function workerFeatures(request: GenerateRequest): Partial<GenerateOptionsMessage> {
  const features: Partial<GenerateOptionsMessage> = {};
  if (request.topK !== undefined) features.topK = request.topK;
  if (request.minP !== undefined) features.minP = request.minP;
  const { repetitionPenalty: repetition, presencePenalty: presence, frequencyPenalty: frequency } = request;
  if (repetition !== undefined || presence !== undefined || frequency !== undefined) features.penalties = { repetition, presence, frequency };
  if (request.output)
    features.grammar = request.output.kind === 'json_object' ? { kind: 'json_object' } : { kind: 'json_schema', schema: request.output.schema };
  if (request.logprobs) features.logprobs = { top: request.topLogprobs ?? 0 };
  if (request.cacheKey !== undefined) features.cacheKey = request.cacheKey;
  return features;
}

/** developer counts as system, tool results as user: ChatML-style templates know only these three. */
export function toWorkerMessages(messages: ChatMessage[]): WorkerChatMessage[] {
  return messages.map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : m.role === 'system' || m.role === 'developer' ? 'system' : 'user',
    content: textForTemplate(m),
  }));
}

/** Tool calls and tool results as plain text, the way the embedded tool prompt describes them (docs/chat.md). */
function textForTemplate(m: ChatMessage): string {
  if (m.role === 'tool') return `Result of tool call ${m.tool_call_id ?? ''}: ${m.content}`;
  if (m.role === 'assistant' && m.tool_calls?.length) {
    const calls = m.tool_calls.map((c) => JSON.stringify({ name: c.function.name, arguments: safeJson(c.function.arguments) }));
    return [m.content, ...calls].filter(Boolean).join('\n');
  }
  return m.content;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
