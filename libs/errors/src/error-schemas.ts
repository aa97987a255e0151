import { z } from 'zod';
import { ErrorDetails } from './error-details';
import { HttpErrorBody } from './http-body';
import { OpenAiErrorBody } from './openai-error';

/**
 * Runtime schemas of the error bodies the gateway sends (StandardError, DetailedError, OpenAI's
 * shape), for the published OpenAPI document. The `satisfies` lines below keep them in step with
 * the interfaces the error filter is typed with.
 */
export const errorDetailsSchema: z.ZodType<ErrorDetails> = z.lazy(() =>
  z.object({ _errors: z.array(z.string()) }).catchall(z.union([errorDetailsSchema, z.array(z.string())])),
) as z.ZodType<ErrorDetails>;

/** `{ "error": "..." }`. */
export const standardErrorSchema = z.object({ error: z.string() }).meta({ id: 'StandardError' });

/** `{ "error": "...", "details": {...} }`: a request that failed validation, field by field. */
export const detailedErrorSchema = z.object({ error: z.string(), details: errorDetailsSchema.meta({ id: 'ErrorDetails' }) }).meta({ id: 'DetailedError' });

/** OpenAI's `{ "error": { message, type, param, code } }`, on the few failures OpenAI clients branch on. */
export const openAiErrorSchema = z
  .object({ error: z.object({ message: z.string(), type: z.string(), code: z.string(), param: z.string().nullable() }) })
  .meta({ id: 'OpenAiError' });

const fits: [z.infer<typeof standardErrorSchema>, z.infer<typeof detailedErrorSchema>, z.infer<typeof openAiErrorSchema>] extends [
  HttpErrorBody,
  HttpErrorBody,
  OpenAiErrorBody,
]
  ? true
  : never = true;
export const ERROR_SCHEMAS_FIT = fits;
