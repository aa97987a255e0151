import { z } from 'zod';
import { embeddingDimensionsSchema, embeddingInputsSchema } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';

/** `POST /embeddings` (OpenAI's CreateEmbeddingRequest). Undocumented fields pass without validation. */
export const embeddingsRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  input: z.union([z.string().min(1, 'input cannot be an empty string'), embeddingInputsSchema]),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  dimensions: embeddingDimensionsSchema.optional(),
  user: z.string().optional(),
});
export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

/**
 * Token-ID input (`[1, 2, 3]` or `[[1, 2], [3]]`) is refused with a message that says what to send
 * instead, before the generic schema error: LangChain's OpenAIEmbeddings sends it by default.
 */
export function rejectTokenArrays(body: unknown): void {
  const input = (body as { input?: unknown } | null)?.input;
  if (!Array.isArray(input)) return;
  const tokenLike = input.some((item) => typeof item === 'number' || (Array.isArray(item) && item.every((t) => typeof t === 'number')));
  if (!tokenLike) return;
  throw new DomainError(
    ErrorCode.Validation,
    'input must be a string or an array of strings; arrays of token IDs are not supported. (LangChain OpenAIEmbeddings: set check_embedding_ctx_length=False.)',
    { _errors: [], input: { _errors: ['token ID arrays are not supported; send text'] } },
  );
}

export const inputsOf = (request: EmbeddingsRequest): string[] => (typeof request.input === 'string' ? [request.input] : request.input);
