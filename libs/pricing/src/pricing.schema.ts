import { z } from 'zod';
import { QualityTier } from '@svc/contracts';
import { priceSchema } from './price.schema';
import { videoPricingSchema } from './video-pricing.schema';

export { priceSchema, type Price } from './price.schema';

export const QUALITY_TIERS = ['low', 'medium', 'high'] as const satisfies readonly QualityTier[];
export type { QualityTier };

const qualityPrices = z.object({ low: priceSchema.optional(), medium: priceSchema.optional(), high: priceSchema.optional() });

/**
 * `model_spec.pricing` of the model catalog, every variant of the public API's ModelResponse in
 * one object (each model uses the fields of its type). Units:
 * - text and embedding: `input`, `output`, `cache_input`, `cache_write` per million tokens;
 *   `extended` replaces them for the whole request when the prompt exceeds its threshold.
 * - image: `generation` per image, or `resolutions[tier]`, or `quality[tier][low|medium|high]`;
 *   `upscale['2x'|'4x']` per image.
 * - image edit (inpaint): `inpaint` per edit (or the resolution/quality tiers), plus
 *   `inputImages.additional` per input image beyond `inputImages.included`.
 * - tts: `input` per million characters, or `per_thousand_characters`.
 * - asr: `per_audio_second`. Music: `generation`, `per_second`, `durations` tiers or
 *   `per_thousand_characters`.
 * - video: `video.*`, one rate per model (video-pricing.schema.ts, docs/video.md).
 * - blockchain JSON-RPC proxy: `per_credit`.
 * - text, web augmentation of a chat request (`svc_parameters`): `web_search` per search run,
 *   `web_scrape` per URL scraped successfully; unpriced means free.
 * - a tool priced per call (the catalog's `augment` section): `per_request`.
 */
export const modelPricingSchema = z.object({
  input: priceSchema.optional(),
  output: priceSchema.optional(),
  cache_input: priceSchema.optional(),
  cache_write: priceSchema.optional(),
  extended: z
    .object({
      context_token_threshold: z.number().int().positive(),
      input: priceSchema,
      output: priceSchema,
      cache_input: priceSchema.optional(),
      cache_write: priceSchema.optional(),
    })
    .optional(),
  generation: priceSchema.optional(),
  resolutions: z.record(z.string(), priceSchema).optional(),
  quality: z.record(z.string(), qualityPrices).optional(),
  upscale: z.object({ '2x': priceSchema.optional(), '4x': priceSchema.optional() }).optional(),
  inpaint: priceSchema.optional(),
  inputImages: z.object({ included: z.number().int().nonnegative(), additional: priceSchema }).optional(),
  per_audio_second: priceSchema.optional(),
  per_second: priceSchema.optional(),
  durations: z.record(z.string(), priceSchema.extend({ min_seconds: z.number().nonnegative(), max_seconds: z.number().nonnegative() })).optional(),
  per_thousand_characters: priceSchema.optional(),
  video: videoPricingSchema.optional(),
  per_credit: priceSchema.optional(),
  web_search: priceSchema.optional(),
  web_scrape: priceSchema.optional(),
  per_request: priceSchema.optional(),
});
export type ModelPricing = z.infer<typeof modelPricingSchema>;
