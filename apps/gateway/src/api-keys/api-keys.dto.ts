import { z } from 'zod';
import {
  API_KEY_TYPES,
  ConsumptionLimits,
  consumptionLimitValueSchema,
  keyDescriptionSchema,
  keyExpiresAtSchema,
  keyIdSchema,
  LIMIT_PERIODS,
  MODEL_PRIVACY,
} from '@svc/contracts';

const limitValue = consumptionLimitValueSchema.optional();
const consumptionLimit = z.object({ usd: limitValue, diem: limitValue, vcu: limitValue }).strict();
const expiresAt = keyExpiresAtSchema;
const description = keyDescriptionSchema.min(1);

export const createKeySchema = z
  .object({
    apiKeyType: z.enum(API_KEY_TYPES),
    description,
    expiresAt: expiresAt.optional(),
    consumptionLimit: consumptionLimit.optional(),
    limitPeriod: z.enum(LIMIT_PERIODS).default('EPOCH'),
    modelPrivacy: z.enum(MODEL_PRIVACY).default('ALL'),
  })
  .strict();

export const updateKeySchema = z
  .object({
    id: keyIdSchema,
    description: description.optional(),
    expiresAt: expiresAt.optional(),
    consumptionLimit: consumptionLimit.optional(),
    limitPeriod: z.enum(LIMIT_PERIODS).optional(),
    modelPrivacy: z.enum(MODEL_PRIVACY).optional(),
  })
  .strict();

export const deleteKeyQuery = z.object({ id: keyIdSchema.min(1, 'Required') });

export function toLimits(input: z.infer<typeof consumptionLimit> | undefined): ConsumptionLimits {
  return { usd: input?.usd ?? null, diem: input?.diem ?? input?.vcu ?? null };
}

/** A new key's settings from a create body (`POST /api_keys`, `POST /api_keys/generate_web3_key`), as the keys service takes them. */
export function newKeySettings(input: z.infer<typeof createKeySchema>) {
  return {
    apiKeyType: input.apiKeyType,
    description: input.description,
    expiresAt: input.expiresAt ?? null,
    consumptionLimits: toLimits(input.consumptionLimit),
    limitPeriod: input.limitPeriod,
    modelPrivacy: input.modelPrivacy,
  };
}
