import { z } from 'zod';
import { withinInlineBudget } from '@svc/contracts';

export const IMAGE_FORMATS = ['jpeg', 'png', 'webp'] as const;
export const SEED_LIMIT = 999_999_999;
export const MAX_SIDE = 1280;

/** Multipart fields arrive as strings: numbers and booleans accept their text form there. */
const num = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v), schema);
const bool = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), schema);

/** `POST /image/generate` (spec "POST /image/generate"); model-specific rules are in image-sizing.ts. */
export const imageGenerateSchema = z
  .object({
    model: z.string().min(1),
    prompt: z.string().min(1).max(7500),
    cfg_scale: z.number().gt(0).max(20).optional(),
    embed_exif_metadata: z.boolean().default(false),
    format: z.enum(IMAGE_FORMATS).default('webp'),
    height: z.number().int().gt(0).max(MAX_SIDE).optional(),
    width: z.number().int().gt(0).max(MAX_SIDE).optional(),
    hide_watermark: z.boolean().default(false),
    /** Deprecated and disabled: accepted, ignored. */
    inpaint: z.unknown().optional(),
    lora_strength: z.number().int().min(0).max(100).optional(),
    negative_prompt: z.string().max(7500).optional(),
    return_binary: z.boolean().default(false),
    variants: z.number().int().min(1).max(4).optional(),
    safe_mode: z.boolean().default(true),
    seed: z.number().int().min(-SEED_LIMIT).max(SEED_LIMIT).optional(),
    steps: z.number().int().min(1).optional(),
    style_preset: z.string().min(1).optional(),
    aspect_ratio: z
      .string()
      .regex(/^\d{1,2}:\d{1,2}$/, 'must look like 16:9')
      .optional(),
    resolution: z.enum(['1K', '2K', '4K']).optional(),
    quality: z.enum(['low', 'medium', 'high']).optional(),
    disable_prompt_optimization_thinking: z.boolean().optional(),
    enhance_prompt: z.boolean().default(false),
    style_references: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.return_binary && v.variants !== undefined && v.variants > 1) {
      ctx.addIssue({ code: 'custom', path: ['variants'], message: 'variants is only allowed when return_binary is false' });
    }
  })
  .superRefine(withinInlineBudget());
export type ImageGenerateInput = z.infer<typeof imageGenerateSchema>;

/** `POST /images/generations`: the OpenAI Images API shape. */
export const openAiImageSchema = z
  .object({
    model: z.string().min(1).default('default'),
    prompt: z.string().min(1).max(7500),
    n: z.number().int().min(1).max(4).nullish(),
    size: z
      .string()
      .regex(/^(auto|\d{1,4}x\d{1,4})$/, 'must be auto or WIDTHxHEIGHT, e.g. 1024x1024')
      .nullish(),
    response_format: z.enum(['b64_json', 'url']).nullish(),
    output_format: z.enum(IMAGE_FORMATS).nullish(),
    moderation: z.enum(['low', 'auto']).nullish(),
    quality: z.enum(['auto', 'high', 'medium', 'low', 'hd', 'standard']).nullish(),
    background: z.string().nullish(),
    output_compression: z.number().int().min(0).max(100).nullish(),
    style: z.string().nullish(),
    user: z.string().optional(),
  })
  .superRefine(withinInlineBudget());
export type OpenAiImageInput = z.infer<typeof openAiImageSchema>;

/** The image field: a multipart file (already read), a base64 string, a data URL or an http(s) URL. */
const imageField = z.union([z.string().min(1), z.instanceof(Buffer)], { error: 'must be a file, a base64 string or an http(s) URL' });

export const EDIT_ASPECT_RATIOS = ['auto', '1:1', '3:2', '16:9', '21:9', '9:16', '2:3', '3:4', '4:5'] as const;

/** `POST /image/edit` (JSON or multipart). */
export const imageEditSchema = z.object({
  image: imageField,
  prompt: z.string().min(1).max(32768),
  aspect_ratio: z.enum(EDIT_ASPECT_RATIOS).optional(),
  resolution: z.string().min(1).max(10).default('1K'),
  model: z.string().min(1).optional(),
  modelId: z.string().min(1).optional(),
  output_format: z.enum(['jpeg', 'jpg', 'png', 'webp']).optional(),
  quality: z.enum(['low', 'medium', 'high']).optional(),
  safe_mode: bool(z.boolean().default(true)),
  seed: num(z.number().int().min(-SEED_LIMIT).max(SEED_LIMIT).optional()),
  disable_prompt_optimization_thinking: bool(z.boolean().optional()),
  enhance_prompt: bool(z.boolean().default(false)),
});
export type ImageEditInput = z.infer<typeof imageEditSchema>;

/** `POST /image/multi-edit` (JSON with base64/URLs, or multipart files): `images` replaces `image`. */
export const imageMultiEditSchema = imageEditSchema.omit({ image: true }).extend({
  images: z.preprocess((v) => (Buffer.isBuffer(v) || typeof v === 'string' ? [v] : v), z.array(imageField).min(1)),
});
export type ImageMultiEditInput = z.infer<typeof imageMultiEditSchema>;

/** `POST /image/background-remove` (JSON or multipart): `image` (file or base64) or `image_url`. */
export const imageBackgroundRemoveSchema = z
  .object({
    image: imageField.optional(),
    image_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    model: z.string().min(1).optional(),
  })
  .strict()
  .refine((v) => (v.image === undefined) !== (v.image_url === undefined), { message: 'give exactly one of image and image_url', path: ['image'] });
export type ImageBackgroundRemoveInput = z.infer<typeof imageBackgroundRemoveSchema>;

/** `POST /images/edits`: the OpenAI Images API edit shape (multipart). */
export const openAiEditSchema = z.object({
  image: imageField,
  prompt: z.string().min(1).max(32768),
  model: z.string().min(1).optional(),
  n: num(z.number().int().min(1).max(1).nullish()),
  size: z
    .string()
    .regex(/^(auto|\d{1,4}x\d{1,4})$/, 'must be auto or WIDTHxHEIGHT')
    .nullish(),
  response_format: z.enum(['b64_json', 'url']).nullish(),
  output_format: z.enum(IMAGE_FORMATS).nullish(),
  user: z.string().optional(),
});
export type OpenAiEditInput = z.infer<typeof openAiEditSchema>;

/** `POST /image/upscale` (JSON or multipart). */
export const imageUpscaleSchema = z.object({
  image: imageField,
  scale: num(z.number().min(2).max(4).default(2)),
  /** 0..1 here (the reference API clamps to 0..0.02; both work): sharpening after the resample. */
  creativity: num(z.number().min(0).max(1).nullish()),
  model: z.string().min(1).optional(),
});
export type ImageUpscaleInput = z.infer<typeof imageUpscaleSchema>;
