import { z } from 'zod';
import { API_KEY_TYPES, LIMIT_PERIODS, MODEL_PRIVACY } from '@svc/contracts';

export const MAX_DESCRIPTION_LENGTH = 64;
const MAX_LIMIT = 9_999_999_999;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export const isUuid = (value: string): boolean => UUID.test(value);

const accountId = z.string().regex(UUID, 'must be a UUID');
const keyId = z.string().min(1).max(100);
const description = z.string().max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
const limit = z.number().min(0).max(MAX_LIMIT).nullable();

/** `YYYY-MM-DD` (midnight UTC) or an ISO date-time, in the future; null or '' for no expiry. */
const expiresAt = z
  .union([z.literal('').transform(() => null), z.null(), z.string().regex(DATE_ONLY).transform((d) => `${d}T00:00:00.000Z`), z.iso.datetime({ offset: true })])
  .transform((v) => (v === null ? null : new Date(v)))
  .refine((d) => d === null || d.getTime() > Date.now(), 'must be in the future');

export const verifyKeySchema = z.object({ secretHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256') });
export const listKeysSchema = z.object({ accountId });
export const keyRefSchema = z.object({ accountId, id: keyId });

export const createKeySchema = z.object({
  accountId,
  apiKeyType: z.enum(API_KEY_TYPES),
  description,
  expiresAt: expiresAt.default(null),
  consumptionLimits: z.object({ usd: limit.default(null), diem: limit.default(null) }).default({ usd: null, diem: null }),
  limitPeriod: z.enum(LIMIT_PERIODS).default('EPOCH'),
  modelPrivacy: z.enum(MODEL_PRIVACY).default('ALL'),
});

export const updateKeySchema = z.object({
  accountId,
  id: keyId,
  description: description.optional(),
  expiresAt: expiresAt.optional(),
  consumptionLimits: z.object({ usd: limit.optional(), diem: limit.optional() }).optional(),
  limitPeriod: z.enum(LIMIT_PERIODS).optional(),
  modelPrivacy: z.enum(MODEL_PRIVACY).optional(),
});

export const keysUsedSchema = z.object({
  uses: z.array(z.object({ id: z.string(), at: z.string() })).max(10_000),
});

export type CreateKeyInput = z.output<typeof createKeySchema>;
export type UpdateKeyInput = z.output<typeof updateKeySchema>;
