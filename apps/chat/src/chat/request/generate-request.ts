import { ModelDefinition } from '@svc/catalog';
import { isRawCompletion, TextCompletionParams, ToolDefinition } from '@svc/contracts';
import { GenerateRequest, OutputConstraint, PromptInput } from '../../engines/engine';
import { capable, checkContentParts, fieldError } from './content-parts';
import { toGrammarSchema } from './json-schema-subset';
import { schemaValidator } from './schema-check';

export const DEFAULT_MAX_TOKENS = 512;

/**
 * Validates the request features against the model (catalog capabilities, cross-field rules) and
 * maps them onto an engine request. Throws a 400 DetailedError naming the field.
 * `max_tokens` is capped by the model's maxCompletionTokens (default 512). A raw prompt goes to the
 * engine as it is (its message schema refused what needs a chat template: tools, system additions).
 */
export function toGenerateRequest(model: ModelDefinition, params: TextCompletionParams, signal: AbortSignal): GenerateRequest {
  const input: PromptInput = isRawCompletion(params) ? { prompt: params.prompt } : { messages: params.messages };
  if (input.messages) checkContentParts(model, input.messages);
  checkTools(model, params);
  if (params.top_logprobs !== undefined && !params.logprobs) throw fieldError(['top_logprobs'], 'top_logprobs requires logprobs: true.');
  if (params.logprobs && !capable(model, 'supportsLogProbs'))
    throw fieldError(['logprobs'], `Model ${model.id} does not return log probabilities (supportsLogProbs is false).`);
  if ((params.n ?? 1) > 1 && params.tools?.length) throw fieldError(['n'], 'n > 1 cannot be combined with tools.');
  const cap = model.maxCompletionTokens ?? DEFAULT_MAX_TOKENS;
  // `input` last: an object literal that starts with a spread is slow on Node 20 (docs/architecture.md, "Object spreads on the request path").
  return {
    maxTokens: Math.min(params.max_tokens ?? cap, cap),
    temperature: params.temperature,
    topP: params.top_p,
    topK: params.top_k,
    minP: params.min_p,
    presencePenalty: params.presence_penalty,
    frequencyPenalty: params.frequency_penalty,
    repetitionPenalty: params.repetition_penalty,
    stop: params.stop,
    seed: params.seed,
    logprobs: params.logprobs,
    topLogprobs: params.top_logprobs,
    output: outputConstraint(model, params),
    responseFormat: params.response_format,
    tools: embedded(model) ? params.tools?.map(grammarTool) : params.tools,
    toolChoice: params.tool_choice,
    parallelToolCalls: params.parallel_tool_calls,
    cacheKey: params.prompt_cache_key,
    passthrough: params.passthrough,
    signal,
    ...input,
  };
}

function checkTools(model: ModelDefinition, params: TextCompletionParams): void {
  const tools = params.tools ?? [];
  const choice = params.tool_choice;
  if (choice !== undefined && choice !== 'none' && tools.length === 0) throw fieldError(['tool_choice'], 'tool_choice needs tools.');
  if (typeof choice === 'object' && !tools.some((t) => t.function.name === choice.function.name)) {
    throw fieldError(['tool_choice', 'function', 'name'], `tool_choice names ${choice.function.name}, which is not in tools.`);
  }
  const names = new Set<string>();
  tools.forEach((t, i) => {
    if (names.has(t.function.name)) throw fieldError(['tools', i, 'function', 'name'], `Duplicate tool name ${t.function.name}.`);
    names.add(t.function.name);
  });
  if (tools.length > 0 && isRawCompletion(params)) throw fieldError(['tools'], 'tools need a chat template, which a raw prompt does not have.');
  const usesTools = tools.length > 0 || (params.messages ?? []).some((m) => m.role === 'tool' || m.tool_calls?.length);
  if (usesTools && !capable(model, 'supportsFunctionCalling')) {
    throw fieldError(
      ['tools'],
      `Model ${model.id} does not support function calling (supportsFunctionCalling is false); remove tools and tool messages or choose another model.`,
    );
  }
}

/**
 * A tool whose parameters the embedded engine can follow: checked here (a 400 naming the place),
 * passed on as sent; tool-calls.ts builds the grammar, run-generation.ts checks the arguments.
 */
function grammarTool(tool: ToolDefinition, index: number): ToolDefinition {
  const parameters = tool.function.parameters;
  if (parameters) checkSchema(parameters, ['tools', index, 'function', 'parameters']);
  return tool;
}

/** The grammar for a schema on the embedded engine; both it and the after-generation check must build (else a 400). */
function checkSchema(schema: Record<string, unknown>, path: Array<string | number>): Record<string, unknown> {
  const grammar = toGrammarSchema(schema, path);
  schemaValidator(schema, path);
  return grammar;
}

const embedded = (model: ModelDefinition): boolean => model.engine.kind === 'embedded-llama';

function outputConstraint(model: ModelDefinition, params: TextCompletionParams): OutputConstraint | undefined {
  const format = params.response_format;
  if (!format || format.type === 'text') return undefined;
  if (!capable(model, 'supportsResponseSchema')) {
    throw fieldError(['response_format'], `Model ${model.id} does not support structured output (supportsResponseSchema is false).`);
  }
  if (format.type === 'json_object') return { kind: 'json_object' };
  const schema = format.json_schema.schema ?? { type: 'object' };
  // Upstream servers get the schema as sent; the embedded engine a grammar for it (docs/chat.md, "Structured outputs").
  return { kind: 'json_schema', schema: embedded(model) ? checkSchema(schema, ['response_format', 'json_schema', 'schema']) : schema };
}
