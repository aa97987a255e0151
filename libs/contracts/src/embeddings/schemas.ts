import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { callerContextSchema } from '../schemas/caller';

/** The most inputs one embeddings request may carry (OpenAI's limit). */
export const EMBEDDINGS_MAX_INPUTS = 2048;

export const embeddingInputItemSchema = z.string().min(1, 'input items cannot be empty strings');
export const embeddingInputsSchema = z
  .array(embeddingInputItemSchema)
  .min(1, 'input must have at least one item')
  .max(EMBEDDINGS_MAX_INPUTS, `input must have at most ${EMBEDDINGS_MAX_INPUTS} items`);
export const embeddingDimensionsSchema = z.number().int().min(1);

/** `chat.cmd.embed.v1` (CreateEmbeddingsRequest): the inputs inline or in a blob, never both. */
export const createEmbeddingsRequestSchema = z
  .object({
    caller: callerContextSchema,
    model: z.string().min(1).max(200),
    input: embeddingInputsSchema.optional(),
    inputBlob: z.looseObject({ blobId: z.string().min(1).max(200), bytes: z.number().int().nonnegative() }).optional(),
    dimensions: embeddingDimensionsSchema.optional(),
    billing: requestBillingSchema.optional(),
  })
  .refine((r) => (r.input === undefined) !== (r.inputBlob === undefined), { message: 'exactly one of input and inputBlob is required', path: ['input'] });

/** `chat.query.embedding-tokens` (CountEmbeddingTokensRequest). */
export const countEmbeddingTokensRequestSchema = z.looseObject({
  caller: callerContextSchema,
  model: z.string().min(1).max(200),
  input: embeddingInputsSchema,
});
