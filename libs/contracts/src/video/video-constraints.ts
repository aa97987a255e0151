import { z } from 'zod';

/**
 * `constraints` of a `video` model in the catalog (docs/video.md, "Catalog"). Read by the gateway
 * (validation, pricing defaults, region blocks) and the media service (engine defaults).
 */
export const videoConstraintsSchema = z
  .object({
    /** The model's own prompt limit (the API's bound is 1 to 20000). */
    promptCharacterLimit: z.number().int().positive().max(20_000).default(2500),
    /** `duration` values the model accepts; absent: every value of the API. */
    durations: z.array(z.string()).optional(),
    resolutions: z.array(z.string()).optional(),
    defaultResolution: z.string().optional(),
    aspectRatios: z.array(z.string()).optional(),
    defaultAspectRatio: z.string().default('16:9'),
    /** Seconds of one generation (`duration: "1 gen"`). */
    generationSeconds: z.number().int().positive().default(5),
    /** Frames per second of generated video. */
    fps: z.number().int().positive().max(120).default(24),
    /** Enhancement models take `video_url` and the enhancement knobs; others refuse them. */
    enhancement: z.boolean().default(false),
    /** Reference-to-video models take `reference_*_urls`, `elements`, `scene_image_urls`, `omni_reference_task_type`. */
    referenceToVideo: z.boolean().default(false),
    /** Models that accept `image_url` / `end_image_url` (image-to-video). */
    imageToVideo: z.boolean().default(false),
    supportsAudio: z.boolean().default(false),
    /** Longest input video (enhancement), seconds. */
    maxInputSeconds: z.number().positive().default(60),
    /** `enhancement_model` values (the reference's `constraints.topaz.models`). */
    topaz: z.object({ models: z.array(z.string().min(1)) }).optional(),
    /** `output_format` when a request gives none (and no `h264_output`): an SDR-to-HDR model's `mp4` (HDR10 H.265). */
    defaultOutputFormat: z.enum(['mp4', 'prores']).optional(),
    /** The output is stored for 24 h and the queue answer carries a signed `download_url`. */
    downloadUrl: z.boolean().default(false),
    /**
     * Regions the model is not offered in (operator policy): a request whose `header` (default
     * `cf-ipcountry`) names one of `countries`, or whose client address is in one of `cidrs`, is a 403.
     */
    regionBlock: z
      .object({
        header: z.string().min(1).default('cf-ipcountry'),
        countries: z.array(z.string().min(2).max(8)).default([]),
        cidrs: z.array(z.string().min(1)).default([]),
      })
      .optional(),
  })
  .passthrough();
export type VideoConstraints = z.infer<typeof videoConstraintsSchema>;

/** A video model's constraints (defaults filled in); throws naming the model when they are invalid. */
export function videoConstraintsOf(model: { id: string; constraints: Record<string, unknown> }): VideoConstraints {
  const parsed = videoConstraintsSchema.safeParse(model.constraints);
  if (!parsed.success)
    throw new Error(
      `catalog: model ${model.id} has invalid video constraints: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}
