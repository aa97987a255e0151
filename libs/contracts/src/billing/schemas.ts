import { z } from 'zod';
import { LIMIT_PERIODS } from '../keys/api-key';
import { BILLING_CURRENCIES, CONSUMPTION_ORDERS } from './money';

// Runtime schemas of billing's wire values: usage, amounts, ids. The billing service validates its
// messages with them; other services build their messages' schemas from them.

/** Any RFC 4122 layout; ids come from Postgres (gen_random_uuid) or crypto.randomUUID. */
export const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID');
/** A non-negative amount of nano-units as decimal text (fits a BIGINT). */
export const nanoSchema = z.string().regex(/^\d{1,18}$/, 'must be a whole number of nano-units (decimal text)');
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const quality = z.enum(['low', 'medium', 'high']);

/** A video job's usage (VideoUsage). */
export const videoUsageSchema = z.object({
  kind: z.literal('video'),
  seconds: count,
  resolution: z.string().min(1).max(16),
  audio: z.boolean().optional(),
  rate: z.enum(['resolution', 'megapixel', 'video-input', 'upscale', 'interpolation']).optional(),
  pixels: count.optional(),
  inputSeconds: count.optional(),
  fps: count.optional(),
});

const nonTextUsage = [
  z.object({ kind: z.literal('embedding'), inputTokens: count }),
  z.object({ kind: z.literal('image'), images: count, resolution: z.string().max(16).optional(), quality: quality.optional() }),
  z.object({ kind: z.literal('upscale'), images: count, factor: z.enum(['2x', '4x']) }),
  z.object({
    kind: z.literal('image-edit'),
    edits: count,
    resolution: z.string().max(16).optional(),
    quality: quality.optional(),
    inputImages: count.optional(),
  }),
  z.object({ kind: z.literal('tts'), characters: count }),
  z.object({ kind: z.literal('asr'), audioMs: count }),
  z.object({ kind: z.literal('music'), generations: count.optional(), durationMs: count.optional(), characters: count.optional() }),
  videoUsageSchema,
  z.object({ kind: z.literal('rpc'), credits: count }),
  z.object({ kind: z.literal('request'), requests: count }),
] as const;

const textUsage = {
  kind: z.literal('text'),
  completionTokens: count,
  cachedPromptTokens: count.optional(),
  cacheWriteTokens: count.optional(),
  webSearches: count.optional(),
  webScrapes: count.optional(),
};

export const usageSchema = z.discriminatedUnion('kind', [z.object({ ...textUsage, promptTokens: count }), ...nonTextUsage]);
export const settledUsageSchema = z.discriminatedUnion('kind', [z.object({ ...textUsage, promptTokens: count.nullable() }), ...nonTextUsage]);

export const currencySchema = z.enum(BILLING_CURRENCIES);
export const consumptionOrderSchema = z.enum(CONSUMPTION_ORDERS);
export const limitPeriodSchema = z.enum(LIMIT_PERIODS);
export const accountRefSchema = z.object({ accountId: uuid });
