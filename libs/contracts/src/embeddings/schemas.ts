import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { callerContextSchema } from '../schemas/caller';
import { inlineOrBlobSchema } from '../schemas/inline-or-blob';

/** The most inputs one embeddings request may carry (OpenAI's limit). */
export const EMBEDDINGS_MAX_INPUTS = 2048;

export const embeddingInputItemSchema = z.string().min(1, 'input items cannot be empty strings');
export const embeddingInputsSchema = z
  .array(embeddingInputItemSchema)
  .min(1, 'input must have at least one item')
  .max(EMBEDDINGS_MAX_INPUTS, `input must have at most ${EMBEDDINGS_MAX_INPUTS} items`);
export const embeddingDimensionsSchema = z.number().int().min(1);

/**
 * `chat.cmd.embed.v2` (CreateEmbeddingsRequest): the inputs as JSON, inline or in a blob; the chat
 * service checks them with `embeddingInputsSchema` once it has the bytes.
 */
export const createEmbeddingsRequestSchema = z.object({
  caller: callerContextSchema,
  model: z.string().min(1).max(200),
  input: inlineOrBlobSchema,
  dimensions: embeddingDimensionsSchema.optional(),
  billing: requestBillingSchema.optional(),
});

/** `chat.query.embedding-tokens` (CountEmbeddingTokensRequest). */
export const countEmbeddingTokensRequestSchema = z.looseObject({
  caller: callerContextSchema,
  model: z.string().min(1).max(200),
  input: embeddingInputsSchema,
});
