import { randomBytes } from 'node:crypto';
import { ChatCompletion, ChoiceLogprobs, FinishReason } from '@svc/contracts';
import { ResponseCost } from '../admission/admission.types';
import { CompletionFinishReason, CompletionLogprobs, TextCompletion } from './completions.types';

/** The prompt an answer continues: `text_offset`s count from its start, and `echo` puts it before each choice's text. */
export interface CompletionPrompt {
  text: string;
  echo: boolean;
}

/** Characters as OpenAI counts them in `text_offset` (Unicode code points, not UTF-16 units). */
const characters = (text: string): number => Array.from(text).length;

/** `cmpl-…`: random, never reused. */
export const newCompletionId = (): string => `cmpl-${randomBytes(12).toString('hex')}`;

/** Legacy completions have no tool calls: a turn that ended in one (web documents) simply stopped. */
export function finishOf(reason: FinishReason): CompletionFinishReason {
  return reason === 'tool_calls' ? 'stop' : reason;
}

/**
 * Chat's per-token log probabilities in the legacy shape. `text_offset` is each token's offset in
 * the prompt and its continuation as one text, as OpenAI counts it (in characters): the first
 * generated token's is the prompt's length, with or without `echo`.
 */
export function toCompletionLogprobs(logprobs: ChoiceLogprobs | null | undefined, prompt: CompletionPrompt): CompletionLogprobs | null {
  const content = logprobs?.content;
  if (!content) return null;
  const offsets: number[] = [];
  let offset = characters(prompt.text);
  for (const entry of content) {
    offsets.push(offset);
    offset += characters(entry.token);
  }
  return {
    tokens: content.map((e) => e.token),
    token_logprobs: content.map((e) => e.logprob),
    top_logprobs: content.map((e) => Object.fromEntries(e.top_logprobs.map((t) => [t.token, t.logprob]))),
    text_offset: offsets,
  };
}

/**
 * `system_fingerprint` only as a string: OpenAI's schema types it so when present, and null broke
 * it (e2e/conformance), so it is left out when the completion has none, as chat leaves it out.
 */
export const fingerprintOf = (fingerprint: string | null | undefined): { system_fingerprint?: string } =>
  typeof fingerprint === 'string' ? { system_fingerprint: fingerprint } : {};

/** The chat service's completion as a `text_completion`: each choice's continuation is its `text`, after the prompt with `echo`. */
export function toTextCompletion(completion: ChatCompletion, id: string, cost: ResponseCost | undefined, prompt: CompletionPrompt): TextCompletion {
  return {
    id,
    object: 'text_completion',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map((c) => ({
      text: (prompt.echo ? prompt.text : '') + (c.message.content ?? ''),
      index: c.index,
      logprobs: toCompletionLogprobs(c.logprobs, prompt),
      finish_reason: finishOf(c.finish_reason),
    })),
    usage: completion.usage,
    ...fingerprintOf(completion.system_fingerprint),
    ...(completion.svc_parameters ? { svc_parameters: completion.svc_parameters } : {}),
    ...(cost ? { cost } : {}),
  };
}
