import { z } from 'zod';
import { DomainError, ErrorCode } from '@svc/errors';

/** Validates a JSON body; failures become 400 DetailedError with `details` nested by field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null) throw new DomainError(ErrorCode.Validation, 'Request body is required (JSON).', { _errors: ['Required'] });
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw DomainError.validation(parsed.error.issues);
  return parsed.data;
}
