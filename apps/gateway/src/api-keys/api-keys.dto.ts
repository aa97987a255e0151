import { z } from 'zod';
import { API_KEY_TYPES, ConsumptionLimits, LIMIT_PERIODS, MODEL_PRIVACY } from '@svc/contracts';

const limitValue = z.number().min(0).max(9_999_999_999).nullable().optional();
const consumptionLimit = z.object({ usd: limitValue, diem: limitValue, vcu: limitValue }).strict();

/** '' (no expiry), a date (midnight UTC) or an ISO date-time; must lie in the future. */
const expiresAt = z
  .union([z.literal(''), z.string().regex(/^\d{4}-\d{2}-\d{2}$/), z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/)], {
    message: 'Expected "", YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS(.sss)Z',
  })
  .transform((value, ctx) => {
    if (value === '') return null;
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

export const createKeySchema = z
  .object({
    apiKeyType: z.enum(API_KEY_TYPES),
    description: z.string().min(1).max(64),
    expiresAt: expiresAt.optional(),
    consumptionLimit: consumptionLimit.optional(),
    limitPeriod: z.enum(LIMIT_PERIODS).default('EPOCH'),
    modelPrivacy: z.enum(MODEL_PRIVACY).default('ALL'),
  })
  .strict();

export const updateKeySchema = z
  .object({
    id: z.string().min(1),
    description: z.string().min(1).max(64).optional(),
    expiresAt: expiresAt.optional(),
    consumptionLimit: consumptionLimit.optional(),
    limitPeriod: z.enum(LIMIT_PERIODS).optional(),
    modelPrivacy: z.enum(MODEL_PRIVACY).optional(),
  })
  .strict();

export const deleteKeyQuery = z.object({ id: z.string().min(1, 'Required') });

export function toLimits(input: z.infer<typeof consumptionLimit> | undefined): ConsumptionLimits {
  return { usd: input?.usd ?? null, diem: input?.diem ?? input?.vcu ?? null };
}
