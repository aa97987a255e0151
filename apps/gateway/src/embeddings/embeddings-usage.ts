import { EmbeddingConstraints } from '@svc/catalog';

/** Special tokens a model may add per input (BOS/EOS, a CLS/SEP pair). */
const SPECIAL_TOKENS_PER_INPUT = 2;

/**
 * An upper bound of the input tokens of a batch, before any model runs: a byte-level or
 * byte-fallback tokenizer (and the word-vector models' words) never makes more tokens than UTF-8
 * bytes, and no input may exceed the model's per-input limit (the service refuses it otherwise).
 */
export function estimateEmbeddingTokens(inputs: string[], constraints: Pick<EmbeddingConstraints, 'maxInputTokens'>): number {
  let total = 0;
  for (const input of inputs) total += Math.min(Buffer.byteLength(input, 'utf8') + SPECIAL_TOKENS_PER_INPUT, constraints.maxInputTokens);
  return total;
}
