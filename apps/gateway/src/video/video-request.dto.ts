import { z } from 'zod';
import { ASPECT_RATIO_VALUES, DURATION_VALUES, RESOLUTION_VALUES } from '@svc/contracts';

// The video API's request bodies (spec "Video"; where it says "not shown", the reference OpenAPI).
// Bounds here are the API's; a model's own limits (prompt length, offered values) are checked
// against its catalog constraints by video-rules.ts.

const oneOf = (values: readonly string[], what: string) => z.string().refine((v) => values.includes(v), { message: `must be one of ${what}` });

const model = z.string().min(1).max(256);
const duration = oneOf(DURATION_VALUES, '1s to 30s, -1, 1 gen, auto, Auto');
const aspectRatio = oneOf(ASPECT_RATIO_VALUES, ASPECT_RATIO_VALUES.join(', '));
const resolution = oneOf(RESOLUTION_VALUES, RESOLUTION_VALUES.join(', '));
const unit = z.number().min(0).max(1);
const url = z.string().min(1).max(20_000_000);

const pricingFields = {
  model,
  duration,
  aspect_ratio: aspectRatio.optional(),
  resolution: resolution.optional(),
  upscale_factor: z.union([z.literal(1), z.literal(2), z.literal(4)]).optional(),
  enhancement_model: z.string().min(1).max(200).optional(),
  target_fps: z.number().int().min(16).max(120).optional(),
  slowdown_factor: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(8)]).optional(),
  audio: z.boolean().optional(),
  video_url: url.optional(),
};

/** `POST /video/quote`. */
export const quoteVideoSchema = z
  .object({
    ...pricingFields,
    reference_video_total_duration: z.number().min(0).optional(),
  })
  .strict();
export type QuoteVideoDto = z.infer<typeof quoteVideoSchema>;

/** `POST /video/queue`: every field of the spec's table. */
export const queueVideoSchema = z
  .object({
    ...pricingFields,
    prompt: z.string().min(1).max(20_000),
    negative_prompt: z.string().max(20_000).optional(),
    consents: z.record(z.string(), z.unknown()).optional(),
    omni_reference_task_type: z.enum(['auto', 'reference', 'edit', 'extend', 'editing', 'extension']).optional(),
    softness: z.number().min(1).max(5).optional(),
    creativity: unit.optional(),
    realism: unit.optional(),
    sharp: unit.optional(),
    compression: unit.optional(),
    noise: unit.optional(),
    halo: unit.optional(),
    grain: z.number().min(0).max(0.1).optional(),
    recover_detail: unit.optional(),
    h264_output: z.boolean().optional(),
    output_format: z.enum(['mp4', 'prores']).optional(),
    image_url: url.optional(),
    end_image_url: url.optional(),
    audio_url: url.optional(),
    reference_image_urls: z.array(url).max(30).optional(),
    reference_video_urls: z.array(url).max(10).optional(),
    reference_audio_urls: z.array(url).max(10).optional(),
    reference_document_urls: z.array(url).max(1).optional(),
    elements: z.array(z.record(z.string(), z.unknown())).max(4).optional(),
    scene_image_urls: z.array(url).max(4).optional(),
    keyframes: z
      .array(z.object({ frame_index: z.number().int().min(0), image_url: url.optional() }).passthrough())
      .max(10)
      .optional(),
    seed: z.number().int().optional(),
  })
  .strict();
export type QueueVideoDto = z.infer<typeof queueVideoSchema>;

/** `POST /video/retrieve` (reference RetrieveVideoRequest). */
export const retrieveVideoSchema = z.object({ model, queue_id: z.string().uuid(), delete_media_on_completion: z.boolean().default(false) }).strict();
export type RetrieveVideoDto = z.infer<typeof retrieveVideoSchema>;

/** `POST /video/complete` (reference CompleteVideoRequest). */
export const completeVideoSchema = z.object({ model, queue_id: z.string().uuid() }).strict();
export type CompleteVideoDto = z.infer<typeof completeVideoSchema>;
