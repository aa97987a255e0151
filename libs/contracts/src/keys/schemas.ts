import { z } from 'zod';
import { storedTextSchema } from '../schemas/stored-text';
import { API_KEY_TYPES, LIMIT_PERIODS, MODEL_PRIVACY } from './api-key';

/** The most a consumption limit may be, in USD or DIEM. */
export const MAX_CONSUMPTION_LIMIT = 9_999_999_999;
export const MAX_KEY_DESCRIPTION_LENGTH = 64;

/**
 * An API key's expiry, one rule for the public API, the keys service and its CLI: '' or null (no
 * expiry), a date (midnight UTC) or an ISO date-time in UTC (`Z`); it must lie in the future.
 * Parsed to the ISO date-time string, or null.
 */
export const keyExpiresAtSchema = z
  .union([z.literal(''), z.null(), z.string().regex(/^\d{4}-\d{2}-\d{2}$/), z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/)], {
    message: 'Expected "", YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS(.sss)Z',
  })
  .transform((value, ctx) => {
    if (value === '' || value === null) return null;
    const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', message: 'Not a valid date' });
      return z.NEVER;
    }
    if (ms <= Date.now()) {
      ctx.addIssue({ code: 'custom', message: 'Expiration must be in the future' });
      return z.NEVER;
    }
    return new Date(ms).toISOString();
  });

/** An API key's description, stored in a Postgres `text` column: no NUL, at most 64 characters. */
export const keyDescriptionSchema = storedTextSchema().max(MAX_KEY_DESCRIPTION_LENGTH, `must be at most ${MAX_KEY_DESCRIPTION_LENGTH} characters`);

/** An API key's id as callers name it (the keys service looks it up; anything longer is no key). */
export const keyIdSchema = z.string().min(1).max(100);

/** A consumption limit in USD or DIEM; null: none. */
export const consumptionLimitValueSchema = z.number().min(0).max(MAX_CONSUMPTION_LIMIT).nullable();

// The keys service's messages (validated by its handlers on receipt; the gateway's body schemas use
// the pieces above).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const accountId = z.string().regex(UUID, 'must be a UUID');
const keyId = keyIdSchema;
const description = keyDescriptionSchema;
const limit = consumptionLimitValueSchema;
/** The expiry as the keys service stores it: a Date, or null. */
const expiresAt = keyExpiresAtSchema.transform((v) => (v === null ? null : new Date(v)));

/** `keys.cmd.verify` */
export const verifyKeyRequestSchema = z.object({ secretHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256') });
/** `keys.cmd.list` */
export const listKeysRequestSchema = z.object({ accountId });
/** `keys.cmd.get`, `keys.cmd.delete` */
export const keyRefRequestSchema = z.object({ accountId, id: keyId });

/** `keys.cmd.create` (also the operator CLI's input) */
export const createKeyRequestSchema = z.object({
  accountId,
  apiKeyType: z.enum(API_KEY_TYPES),
  description,
  expiresAt: expiresAt.default(null),
  consumptionLimits: z.object({ usd: limit.default(null), diem: limit.default(null) }).default({ usd: null, diem: null }),
  limitPeriod: z.enum(LIMIT_PERIODS).default('EPOCH'),
  modelPrivacy: z.enum(MODEL_PRIVACY).default('ALL'),
});

/** `keys.cmd.update` */
export const updateKeyRequestSchema = z.object({
  accountId,
  id: keyId,
  description: description.optional(),
  expiresAt: expiresAt.optional(),
  consumptionLimits: z.object({ usd: limit.optional(), diem: limit.optional() }).optional(),
  limitPeriod: z.enum(LIMIT_PERIODS).optional(),
  modelPrivacy: z.enum(MODEL_PRIVACY).optional(),
});

/** `keys.evt.used` */
export const keysUsedEventSchema = z.object({ uses: z.array(z.object({ id: z.string(), at: z.string() })).max(10_000) });

/** `keys.cmd.create-account` */
export const createAccountRequestSchema = z.object({ name: z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters') });
