import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { callerContextSchema } from '../schemas/caller';
import { blobRefSchema, modelIdSchema, textSchema } from '../schemas/wire';

const format = z.enum(['jpeg', 'png', 'webp']);
const side = z.number().int().positive().max(8192);
const quality = z.enum(['low', 'medium', 'high']);
const tier = { resolution: z.string().max(16).optional(), quality: quality.optional() };
const seed = z.number().int().optional();

/** `media.cmd.image-generate` (ImageGenerateRequest). */
export const imageGenerateRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: z.looseObject({
    model: modelIdSchema,
    prompt: textSchema(100_000),
    negativePrompt: textSchema(100_000).optional(),
    width: side,
    height: side,
    steps: z.number().int().positive().optional(),
    cfgScale: z.number().positive().max(100).optional(),
    seed,
    variants: z.number().int().min(1).max(16),
    format,
    embedExifMetadata: z.boolean(),
    hideWatermark: z.boolean(),
    safeMode: z.boolean(),
    stylePreset: z.string().max(200).optional(),
    ...tier,
  }),
  billing: requestBillingSchema.optional(),
});

/** `media.cmd.image-edit` (ImageEditRequest). */
export const imageEditRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: z.looseObject({
    model: modelIdSchema,
    prompt: textSchema(100_000),
    image: blobRefSchema,
    width: side,
    height: side,
    format,
    safeMode: z.boolean(),
    seed,
    ...tier,
    inputImages: z.number().int().positive().max(64).optional(),
  }),
  billing: requestBillingSchema.optional(),
});

/** `media.cmd.image-upscale` (ImageUpscaleRequest). */
export const imageUpscaleRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: z.looseObject({ model: modelIdSchema, image: blobRefSchema, scale: z.number().min(1).max(8), creativity: z.number().min(0).max(1) }),
  billing: requestBillingSchema.optional(),
});

/** `media.cmd.image-background-remove` (ImageBackgroundRemoveRequest). */
export const imageBackgroundRemoveRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: z.looseObject({ model: modelIdSchema, image: blobRefSchema }),
  billing: requestBillingSchema.optional(),
});
