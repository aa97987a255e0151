import { z } from 'zod';
import { priceSchema } from './price.schema';

/**
 * `model_spec.pricing.video`: a video model sets one rate (docs/video.md, "Pricing").
 * - `per_second[resolution]`: per second of output by resolution (`resolution` required);
 *   `audio_multiplier` applies when audio is on.
 * - `per_megapixel_second`: per million pixels of one output frame per second (`aspect_ratio`
 *   required, with the resolution it sets the frame).
 * - `video_input.per_million_tokens`: the with-video-input tier, used instead of the above when
 *   `reference_video_total_duration` is given: tokens = (input + output seconds) x pixels x 24 / 1024.
 * - `upscale['1x'|'2x'|'4x']`: per second of the input video; doubled when `target_fps` >= 48.
 * - `interpolation.per_frame`: per output frame (duration x `slowdown_factor` x `target_fps`).
 */
export const videoPricingSchema = z
  .object({
    per_second: z.record(z.string(), priceSchema).optional(),
    audio_multiplier: z.number().positive().optional(),
    per_megapixel_second: priceSchema.optional(),
    video_input: z.object({ per_million_tokens: priceSchema }).strict().optional(),
    upscale: z.object({ '1x': priceSchema.optional(), '2x': priceSchema.optional(), '4x': priceSchema.optional() }).strict().optional(),
    interpolation: z.object({ per_frame: priceSchema }).strict().optional(),
  })
  .strict();
export type VideoPricing = z.infer<typeof videoPricingSchema>;
