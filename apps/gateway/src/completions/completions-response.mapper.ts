import { randomBytes } from 'node:crypto';
import { ChatCompletion, ChoiceLogprobs, FinishReason } from '@svc/contracts';
import { ResponseCost } from '../admission/admission.types';
import { CompletionFinishReason, CompletionLogprobs, TextCompletion } from './completions.types';

/** `cmpl-…`: random, never reused. */
export const newCompletionId = (): string => `cmpl-${randomBytes(12).toString('hex')}`;

/** Legacy completions have no tool calls: a turn that ended in one (web documents) simply stopped. */
export function finishOf(reason: FinishReason): CompletionFinishReason {
  return reason === 'tool_calls' ? 'stop' : reason;
}

/**
 * Chat's per-token log probabilities in the legacy shape. `text_offset` is each token's offset in
 * the choice's text (the running length of the tokens before it): the prompt is not part of the text.
 */
export function toCompletionLogprobs(logprobs: ChoiceLogprobs | null | undefined): CompletionLogprobs | null {
  const content = logprobs?.content;
  if (!content) return null;
  const offsets: number[] = [];
  let offset = 0;
  for (const entry of content) {
    offsets.push(offset);
    offset += entry.token.length;
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

/** The chat service's completion as a `text_completion`: each choice's message text is its `text`. */
export function toTextCompletion(completion: ChatCompletion, id: string, cost: ResponseCost | undefined): TextCompletion {
  return {
    id,
    object: 'text_completion',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map((c) => ({
      text: c.message.content ?? '',
      index: c.index,
      logprobs: toCompletionLogprobs(c.logprobs),
      finish_reason: finishOf(c.finish_reason),
    })),
    usage: completion.usage,
    ...fingerprintOf(completion.system_fingerprint),
    ...(completion.svc_parameters ? { svc_parameters: completion.svc_parameters } : {}),
    ...(cost ? { cost } : {}),
  };
}
