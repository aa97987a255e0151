import { z } from 'zod';
import { callerContextSchema } from '../schemas/caller';
import { blobRefSchema } from '../schemas/wire';
import { requestBillingSchema } from '../billing/message-schemas';

const call = { caller: callerContextSchema, billing: requestBillingSchema.optional() };

/** `chat.cmd.augment-search` (AugmentSearchRequest). */
export const augmentSearchRequestSchema = z.looseObject({
  ...call,
  query: z.string().min(1).max(10_000),
  limit: z.number().int().min(1).max(100),
});
/** `chat.cmd.augment-scrape` (AugmentScrapeRequest): the URL goes through the SSRF guard after this. */
export const augmentScrapeRequestSchema = z.looseObject({ ...call, url: z.string().min(1).max(8192) });
/** `chat.cmd.augment-parse-text` (AugmentParseTextRequest). */
export const augmentParseTextRequestSchema = z.looseObject({
  ...call,
  file: blobRefSchema,
  filename: z.string().max(1000).optional(),
  mediaType: z.string().max(255).optional(),
});
