import { ChatCompletionChunk } from '@svc/contracts';
import { ErrorStyle } from '@svc/errors';
import { chatCompletionChunks, StreamEncoder } from '../chat/sse-streamer';
import { CompletionPrompt, finishOf, fingerprintOf, toCompletionLogprobs } from './completions-response.mapper';
import { CompletionChoice, TextCompletion } from './completions.types';

/**
 * One chat chunk as a `text_completion` chunk, or null when it carries nothing a legacy client
 * reads (the role chunk, web sources, tool calls). Text pieces keep their order; a choice's
 * finish reason (and its log probabilities, which chat sends there) come in a chunk of empty
 * text; `include_usage` gives a last chunk with `choices: []` and the usage. With `echo`, each
 * choice's first chunk starts with the prompt (`echoed` holds the choices that had theirs).
 */
export function toCompletionChunk(chunk: ChatCompletionChunk, id: string, prompt: CompletionPrompt, echoed = new Set<number>()): TextCompletion | null {
  const choices: CompletionChoice[] = [];
  for (const c of chunk.choices) {
    let text = c.delta.content ?? '';
    if (!text && c.finish_reason === null) continue;
    if (prompt.echo && !echoed.has(c.index)) {
      echoed.add(c.index);
      text = prompt.text + text;
    }
    choices.push({
      text,
      index: c.index,
      logprobs: c.finish_reason === null ? null : toCompletionLogprobs(c.logprobs, prompt),
      finish_reason: c.finish_reason === null ? null : finishOf(c.finish_reason),
    });
  }
  if (!choices.length && !chunk.usage) return null;
  return {
    id,
    object: 'text_completion',
    created: chunk.created,
    model: chunk.model,
    choices,
    ...(chunk.usage ? { usage: chunk.usage } : {}),
    ...fingerprintOf(chunk.system_fingerprint),
  };
}

/** The SSE encoder of /completions: `text_completion` chunks, then `data: [DONE]`; failures as on chat. */
export function completionChunks(id: string, style: ErrorStyle, prompt: CompletionPrompt): StreamEncoder {
  const chat = chatCompletionChunks(style);
  const echoed = new Set<number>();
  return {
    chunk: (json) => {
      const mapped = toCompletionChunk(JSON.parse(json) as ChatCompletionChunk, id, prompt, echoed);
      return mapped ? `data: ${JSON.stringify(mapped)}\n\n` : '';
    },
    end: chat.end,
    error: chat.error,
  };
}
