import { z } from 'zod';

export const NUL_FREE_MESSAGE = 'must not contain NUL characters (\\u0000)';

/**
 * A string that is stored in (or searched against) a PostgreSQL `text` column. Postgres refuses
 * U+0000 in text, so without this check the write fails inside the service (a 503) instead of a
 * 400 naming the field. Chain the usual checks after it: `storedTextSchema().trim().max(200)`.
 */
export const storedTextSchema = (params?: Parameters<typeof z.string>[0]) =>
  z.string(params).refine((value) => !value.includes('\u0000'), { message: NUL_FREE_MESSAGE });
