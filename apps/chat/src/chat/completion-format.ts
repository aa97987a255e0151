import { randomBytes } from 'node:crypto';
import { ChatCompletion, ChatCompletionChunk, ChoiceLogprobs, FinishReason, ToolCall, Usage, WebSearchResult } from '@svc/contracts';
import { GenerateResult } from '../engines/engine';

const idPrefix = `chatcmpl-${randomBytes(6).toString('hex')}`;
let idCounter = 0;
/** Unique per process (random prefix) and across requests (counter), without a syscall each. */
export const newCompletionId = (): string => `${idPrefix}${(++idCounter).toString(16).padStart(12, '0')}`;
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function usageOf(result: GenerateResult): Usage {
  const usage: Usage = {
    prompt_tokens: result.promptTokens,
    completion_tokens: result.completionTokens,
    total_tokens: result.promptTokens + result.completionTokens,
  };
  if (result.cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: result.cachedTokens };
  return usage;
}

/** n choices: the prompt counts once (as OpenAI bills it), completions add up; cached tokens of the first. */
export function combineResults(results: GenerateResult[]): GenerateResult {
  if (results.length === 1) return results[0];
  return Object.assign({}, results[0], { completionTokens: results.reduce((sum, r) => sum + r.completionTokens, 0) });
}

function messageOf(result: GenerateResult): ChatCompletion['choices'][number]['message'] {
  if (result.toolCalls?.length) return { role: 'assistant', content: result.text || null, refusal: null, tool_calls: result.toolCalls };
  return { role: 'assistant', content: result.text, refusal: null };
}

/**
 * No `system_fingerprint`: no engine reports one, and OpenAI's schema types the field as a string
 * when present (null breaks it), so it is left out, as OpenAI leaves it out for some models.
 */
export function toCompletion(id: string, model: string, generated: GenerateResult | GenerateResult[]): ChatCompletion {
  const results = Array.isArray(generated) ? generated : [generated];
  const result = combineResults(results);
  return {
    id,
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: results.map((r, index) => ({ index, message: messageOf(r), logprobs: r.logprobs ?? null, finish_reason: r.finishReason })),
    usage: usageOf(result),
  };
}

/** Builds the `chat.completion.chunk` objects of one streamed completion. */
export class ChunkFactory {
  private readonly created = nowSeconds();
  constructor(
    private readonly id: string,
    private readonly model: string,
  ) {}

  role(index = 0): ChatCompletionChunk {
    return this.chunk({ role: 'assistant', content: '' }, null, index);
  }
  content(text: string, index = 0): ChatCompletionChunk {
    return this.chunk({ content: text }, null, index);
  }
  /**
   * Finished tool calls as OpenAI streams them: per call, a chunk naming it (id, type, name, empty
   * arguments), then a chunk with its arguments; the finish reason comes in the chunk after.
   */
  toolCalls(calls: ToolCall[], index = 0): ChatCompletionChunk[] {
    return calls.flatMap((c, i) => [
      this.chunk({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }, null, index),
      this.chunk({ tool_calls: [{ index: i, function: { arguments: c.function.arguments } }] }, null, index),
    ]);
  }
  finish(reason: FinishReason, index = 0, logprobs: ChoiceLogprobs | null = null): ChatCompletionChunk {
    const chunk = this.chunk({}, reason, index);
    chunk.choices[0].logprobs = logprobs;
    return chunk;
  }
  /** `include_search_results_in_stream`: the sources, as the first chunk of the stream. */
  searchResults(results: WebSearchResult[]): ChatCompletionChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [],
      svc_search_results: results,
    };
  }
  usage(usage: Usage): ChatCompletionChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage };
  }

  private chunk(delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null, index = 0): ChatCompletionChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    };
  }
}
