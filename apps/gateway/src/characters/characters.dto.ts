import { z } from 'zod';
import { CHARACTER_SORTS, characterInputSchema, characterReviewInputSchema, storedTextSchema } from '@svc/contracts';

/** A query list: the parameter repeated (`?tags=a&tags=b`) or comma-separated (`?tags=a,b`). */
const queryList = (maxLength: number) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((item) => item.split(','))
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .pipe(z.array(storedTextSchema().max(maxLength, `each value must be at most ${maxLength} characters`)).max(20, 'at most 20 values'));

const queryFlag = z.enum(['true', 'false'], { message: 'must be "true" or "false"' }).transform((v) => v === 'true');
const queryInt = (min: number, max: number | undefined, fallback: number) => {
  const bounded = max === undefined ? z.coerce.number().int().min(min) : z.coerce.number().int().min(min).max(max);
  return z.preprocess((v) => (v === '' ? undefined : v), bounded.default(fallback));
};

/** GET /characters: the reference's filters, discovery sort modes and offset pagination. */
export const listCharactersQuery = z.object({
  categories: queryList(100).optional(),
  tags: queryList(100).optional(),
  modelId: queryList(200).optional(),
  isAdult: queryFlag.optional(),
  isPro: queryFlag.optional(),
  isWebEnabled: queryFlag.optional(),
  search: storedTextSchema().max(200).optional(),
  sortBy: z.enum(CHARACTER_SORTS).default('featured'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  limit: queryInt(1, 100, 50),
  offset: queryInt(0, undefined, 0),
});

/** GET /characters/{slug}/reviews */
export const listReviewsQuery = z.object({
  page: queryInt(1, undefined, 1),
  pageSize: queryInt(1, 100, 20),
});

/** POST /characters (ADMIN): creates a character, or replaces the caller's own one with the same slug (the rules of @svc/contracts). */
export const createCharacterBody = characterInputSchema;

/** POST /characters/{slug}/reviews (ADMIN): records a review, e.g. imported from elsewhere. */
export const addReviewBody = characterReviewInputSchema;

/** DELETE /characters/{slug}/reviews/{id}: the review's id. */
export const reviewIdSchema = z.string().uuid();

export type ListCharactersQuery = z.infer<typeof listCharactersQuery>;
export type ListReviewsQuery = z.infer<typeof listReviewsQuery>;
export type CreateCharacterBody = z.infer<typeof createCharacterBody>;
export type AddReviewBody = z.infer<typeof addReviewBody>;
