import { randomBytes } from 'node:crypto';
import { ChatCompletion, ChatCompletionChunk, FinishReason, Usage } from '@svc/contracts';
import { GenerateResult } from '../engines/engine';

const idPrefix = `chatcmpl-${randomBytes(6).toString('hex')}`;
let idCounter = 0;
/** Unique per process (random prefix) and across requests (counter), without a syscall each. */
export const newCompletionId = (): string => `${idPrefix}${(++idCounter).toString(16).padStart(12, '0')}`;
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function usageOf(result: GenerateResult): Usage {
  return { prompt_tokens: result.promptTokens, completion_tokens: result.completionTokens, total_tokens: result.promptTokens + result.completionTokens };
}

export function toCompletion(id: string, model: string, result: GenerateResult): ChatCompletion {
  return {
    id,
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: result.text, refusal: null }, logprobs: null, finish_reason: result.finishReason }],
    usage: usageOf(result),
    system_fingerprint: null,
  };
}

/** Builds the `chat.completion.chunk` objects of one streamed completion. */
export class ChunkFactory {
  private readonly created = nowSeconds();
  constructor(
    private readonly id: string,
    private readonly model: string,
  ) {}

  role(): ChatCompletionChunk {
    return this.chunk({ role: 'assistant', content: '' }, null);
  }
  content(text: string): ChatCompletionChunk {
    return this.chunk({ content: text }, null);
  }
  finish(reason: FinishReason): ChatCompletionChunk {
    return this.chunk({}, reason);
  }
  usage(usage: Usage): ChatCompletionChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage, system_fingerprint: null };
  }

  private chunk(delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null): ChatCompletionChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      system_fingerprint: null,
    };
  }
}
