import { randomBytes } from 'node:crypto';
import { ChatMessage, ToolCall, ToolChoice, ToolDefinition } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { toGrammarSchema } from './json-schema-subset';

/**
 * Function calling on the embedded engine (docs/chat.md, "Request features"): the tools are
 * described in a system message and, when a call is due, the output is constrained by a JSON
 * schema grammar to `{"name": <one of the tools>, "arguments": <its parameters>}`, so it always
 * parses into one OpenAI `tool_calls` entry.
 *
 * When is a call due? `required` or a named function: always. `auto`: when the conversation
 * ends with a user turn (a grammar cannot let a small model choose between prose and a call);
 * after a tool result the model answers in text. `none`: never (tools are still described).
 * `parallel_tool_calls`: one call per answer whatever its value (what `false` asks, what `true` allows).
 */
export interface ToolPlan {
  messages: ChatMessage[];
  /** The schema the output must follow, when a call is due. */
  callSchema?: Record<string, unknown>;
}

export function planToolUse(messages: ChatMessage[], tools: ToolDefinition[], choice: ToolChoice = 'auto'): ToolPlan {
  const withTools = [{ role: 'system' as const, content: describeTools(tools) }, ...messages];
  const last = messages.at(-1)?.role;
  const due = choice === 'required' || typeof choice === 'object' || (choice === 'auto' && last === 'user');
  if (!due) return { messages: withTools };
  const callable = typeof choice === 'object' ? tools.filter((t) => t.function.name === choice.function.name) : tools;
  const variants = callable.map((t) => ({
    type: 'object',
    properties: { name: { const: t.function.name }, arguments: argumentsSchema(t) },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  return { messages: withTools, callSchema: variants.length === 1 ? variants[0] : { oneOf: variants } };
}

function argumentsSchema(tool: ToolDefinition): Record<string, unknown> {
  const parameters = tool.function.parameters;
  if (!parameters || Object.keys(parameters).length === 0 || (parameters.type === 'object' && !parameters.properties)) {
    return { type: 'object', properties: {}, additionalProperties: false };
  }
  return toGrammarSchema(parameters, ['tools', tool.function.name, 'function', 'parameters']);
}

function describeTools(tools: ToolDefinition[]): string {
  const lines = tools.map(
    (t) => `- ${t.function.name}: ${t.function.description ?? ''} Parameters (JSON schema): ${JSON.stringify(t.function.parameters ?? {})}`,
  );
  return ['You can call these tools. To call one, answer with only a JSON object {"name": <tool name>, "arguments": <arguments object>}.', ...lines].join('\n');
}

/** The grammar-constrained output as an OpenAI tool call. */
export function toToolCall(text: string): ToolCall {
  let parsed: { name?: unknown; arguments?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new DomainError(ErrorCode.Upstream, 'The model did not finish its tool call within max_tokens; raise max_tokens.');
  }
  if (typeof parsed.name !== 'string') throw new DomainError(ErrorCode.Upstream, 'The model produced a tool call without a name.');
  return {
    id: `call_${randomBytes(12).toString('hex')}`,
    type: 'function',
    function: { name: parsed.name, arguments: JSON.stringify(parsed.arguments ?? {}) },
  };
}
