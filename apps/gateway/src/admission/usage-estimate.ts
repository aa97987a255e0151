import { ChatCompletionParams, TextUsage } from '@svc/contracts';
import { ModelDefinition } from '@svc/catalog';

/** Tokens a chat template adds around each message (role markers), generously. */
const PER_MESSAGE_OVERHEAD = 8;
const DEFAULT_MAX_COMPLETION = 512;

/**
 * An upper bound of a chat request's usage without running a tokenizer: every token of a
 * byte-level or byte-fallback tokenizer covers at least one UTF-8 byte, so bytes bound tokens.
 */
export function estimateChatUsage(params: ChatCompletionParams, model: ModelDefinition): TextUsage {
  let promptTokens = 0;
  for (const message of params.messages) promptTokens += Buffer.byteLength(message.content, 'utf8') + PER_MESSAGE_OVERHEAD;
  const cap = model.maxCompletionTokens ?? DEFAULT_MAX_COMPLETION;
  if (model.availableContextTokens) promptTokens = Math.min(promptTokens, model.availableContextTokens);
  return { kind: 'text', promptTokens, completionTokens: Math.min(params.max_tokens ?? cap, cap) };
}
