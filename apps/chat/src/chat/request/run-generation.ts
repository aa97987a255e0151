import { GenerateRequest, GenerateResult, OnText, TextEngine } from '../../engines/engine';
import { AnswerMismatchError, schemaMismatch, schemaValidator } from './schema-check';
import { planToolUse, toToolCall } from './tool-calls';

/** Where and why an answer does not match its schema (the schema's field, the place in it). */
interface Miss {
  path: Array<string | number>;
  reason: string;
}
/** Why an answer does not match its schema, or undefined when it does (or is not checked). */
type Check = (result: GenerateResult) => Miss | undefined;

/**
 * Runs one generation with the request features the engine does not do itself: on the embedded
 * engine, function calling (tools described in a system message, the call forced by a JSON
 * schema grammar and returned as `tool_calls`, never streamed as text), and the check of a
 * JSON-schema answer against what its grammar could not enforce (docs/chat.md, "Structured
 * outputs"). Upstream engines get the request as it is.
 */
export async function runGeneration(engine: TextEngine, request: GenerateRequest, onText?: OnText): Promise<GenerateResult> {
  if (engine.kind !== 'embedded') return engine.generate(request, onText);
  // Tools come with messages only (a raw prompt refuses them): they are described in a system message.
  if (!request.tools?.length || !request.messages) {
    const check = answerCheck(request);
    // A streamed answer has reached the client as it was made: nothing to take back or retry.
    return check && !onText ? checked((attempt) => engine.generate(reseed(request, attempt)), check) : engine.generate(request, onText);
  }
  const plan = planToolUse(request.messages, request.tools, request.toolChoice);
  if (!plan.callSchema) return engine.generate({ ...request, messages: plan.messages }, onText);
  const call: GenerateRequest = { ...request, messages: plan.messages, output: { kind: 'json_schema', schema: plan.callSchema } };
  const result = await checked((attempt) => engine.generate(reseed(call, attempt)), argumentsCheck(request));
  // Cut by max_tokens: the partial JSON is returned as text with finish_reason length, as OpenAI does.
  if (result.finishReason === 'length') {
    if (onText && result.text) await onText(result.text);
    return result;
  }
  return Object.assign({}, result, { text: '', finishReason: 'tool_calls' as const, toolCalls: [toToolCall(result.text)] });
}

/** How many times `runGeneration` may evaluate the request's prompt: twice where an answer is checked and may be retried. */
export function promptEvaluations(engine: TextEngine, request: GenerateRequest): number {
  if (engine.kind !== 'embedded') return 1;
  return request.tools?.length || answerCheck(request) ? 2 : 1;
}

/**
 * One retry when a finished answer does not match; a second mismatch is a 400 naming the schema's
 * field and the place in it (AnswerMismatchError; a fallback model, if any, gets the request).
 * The grammar enforces everything but the few keywords it cannot say, so this is rare and never
 * a 5xx, which every SDK would retry. Both attempts' tokens are counted.
 */
async function checked(generate: (attempt: number) => Promise<GenerateResult>, check: Check): Promise<GenerateResult> {
  const first = await generate(0);
  if (first.finishReason === 'length' || !check(first)) return first;
  const second = await generate(1);
  const total = { ...second, promptTokens: first.promptTokens + second.promptTokens, completionTokens: first.completionTokens + second.completionTokens };
  const miss = second.finishReason === 'length' ? undefined : check(second);
  if (!miss) return total;
  throw new AnswerMismatchError(miss.path, miss.reason);
}

/** A retry with a seed samples differently (n choices use seed + index: stay clear of those). */
function reseed(request: GenerateRequest, attempt: number): GenerateRequest {
  return attempt > 0 && request.seed !== undefined ? { ...request, seed: request.seed + 100_003 * attempt } : request;
}

function answerCheck(request: GenerateRequest): Check | undefined {
  const format = request.responseFormat as { type?: string; json_schema?: { schema?: Record<string, unknown> } } | undefined;
  const schema = format?.type === 'json_schema' ? format.json_schema?.schema : undefined;
  if (!schema) return undefined;
  const path = ['response_format', 'json_schema', 'schema'];
  const validate = schemaValidator(schema, path);
  return (result) => {
    const reason = schemaMismatch(validate, result.text);
    return reason === undefined ? undefined : { path, reason };
  };
}

/** Checks the called tool's arguments against its own parameters schema. */
function argumentsCheck(request: GenerateRequest): Check {
  return (result) => {
    let call: { name?: unknown; arguments?: unknown };
    try {
      call = JSON.parse(result.text) as typeof call;
    } catch {
      return { path: ['tools'], reason: 'the tool call is not complete JSON' };
    }
    const index = request.tools!.findIndex((t) => t.function.name === call.name);
    const parameters = request.tools![index]?.function.parameters;
    if (!parameters) return undefined;
    const path = ['tools', index, 'function', 'parameters'];
    const reason = schemaMismatch(schemaValidator(parameters, path), JSON.stringify(call.arguments ?? {}));
    return reason === undefined ? undefined : { path, reason: `tool ${String(call.name)} arguments ${reason}` };
  };
}
