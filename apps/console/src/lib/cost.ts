import { ModelPricing, Price } from '../api/types';
import { toNano } from './money';

/** What a call used, as its response reports it. */
export type CallUsage =
  | { kind: 'text'; promptTokens: number; completionTokens: number }
  | { kind: 'image'; images: number }
  | { kind: 'speech'; characters: number }
  | { kind: 'transcription'; audioMs: number };

/** Nano-USD of `quantity` base units at `price` per `per` units, rounded up as the platform rounds each line. */
function line(quantity: number, per: number, price: Price | undefined): bigint {
  if (!price || quantity <= 0) return 0n;
  const per_ = BigInt(per);
  return (BigInt(quantity) * toNano(price.usd) + per_ - 1n) / per_;
}

/**
 * The USD cost of a call from the usage in its response and the model's catalog prices: what a
 * streamed chat answer does not carry itself (a non-streamed one has `cost`). The same per-line
 * rounding as billing (libs/pricing), so the balance goes down by exactly this.
 */
export function costOf(pricing: ModelPricing, usage: CallUsage): bigint | null {
  switch (usage.kind) {
    case 'text':
      if (!pricing.input || !pricing.output) return null;
      return line(usage.promptTokens, 1_000_000, pricing.input) + line(usage.completionTokens, 1_000_000, pricing.output);
    case 'image':
      return pricing.generation ? line(usage.images, 1, pricing.generation) : null;
    case 'speech':
      if (pricing.per_thousand_characters) return line(usage.characters, 1_000, pricing.per_thousand_characters);
      return pricing.input ? line(usage.characters, 1_000_000, pricing.input) : null;
    case 'transcription':
      return pricing.per_audio_second ? line(usage.audioMs, 1_000, pricing.per_audio_second) : null;
  }
}
