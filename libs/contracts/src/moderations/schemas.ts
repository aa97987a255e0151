import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { callerContextSchema } from '../schemas/caller';
import { blobRefSchema, modelIdSchema, textSchema } from '../schemas/wire';

/** Bounds of one moderation request, the public API's (the gateway checks them first, with field names). */
export const MODERATION_MAX_TEXTS = 256;
export const MODERATION_MAX_PARTS = 16;
export const MODERATION_MAX_IMAGES = 4;

const partSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: textSchema() }),
  z.looseObject({ type: z.literal('image'), image: blobRefSchema }),
]);

/** `media.cmd.moderate.v1` (CreateModerationRequest). */
export const createModerationRequestSchema = z.looseObject({
  caller: callerContextSchema,
  model: modelIdSchema,
  input: z.discriminatedUnion('kind', [
    z.looseObject({ kind: z.literal('texts'), texts: z.array(textSchema()).min(1).max(MODERATION_MAX_TEXTS) }),
    z.looseObject({
      kind: z.literal('parts'),
      parts: z
        .array(partSchema)
        .min(1)
        .max(MODERATION_MAX_PARTS)
        .refine((parts) => parts.filter((p) => p.type === 'image').length <= MODERATION_MAX_IMAGES, `at most ${MODERATION_MAX_IMAGES} images`),
    }),
  ]),
  billing: requestBillingSchema.optional(),
});
