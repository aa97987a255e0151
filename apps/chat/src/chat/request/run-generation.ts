import { GenerateRequest, GenerateResult, OnText, TextEngine } from '../../engines/engine';
import { planToolUse, toToolCall } from './tool-calls';

/**
 * Runs one generation with the request features the engine does not do itself: on the embedded
 * engine, function calling (tools described in a system message, the call forced by a JSON
 * schema grammar and returned as `tool_calls`, never streamed as text). Upstream engines get the
 * request as it is.
 */
export async function runGeneration(engine: TextEngine, request: GenerateRequest, onText?: OnText): Promise<GenerateResult> {
  if (engine.kind !== 'embedded' || !request.tools?.length) return engine.generate(request, onText);
  const plan = planToolUse(request.messages, request.tools, request.toolChoice);
  if (!plan.callSchema) return engine.generate({ ...request, messages: plan.messages }, onText);
  const result = await engine.generate({ ...request, messages: plan.messages, output: { kind: 'json_schema', schema: plan.callSchema } });
  // Cut by max_tokens: the partial JSON is returned as text with finish_reason length, as OpenAI does.
  if (result.finishReason === 'length') {
    if (onText && result.text) await onText(result.text);
    return result;
  }
  return { ...result, text: '', finishReason: 'tool_calls', toolCalls: [toToolCall(result.text)] };
}
