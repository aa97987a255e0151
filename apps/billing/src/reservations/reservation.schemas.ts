import { z } from 'zod';
import { modelPricingSchema } from '@svc/pricing';
import { limitPeriodSchema, settledUsageSchema, usageSchema, uuid } from '../shared/schemas';

const limit = z.number().nonnegative().max(9_999_999_999).nullable();

export const reserveSchema = z.object({
  reservationId: uuid,
  requestId: z.string().min(1).max(64),
  accountId: uuid,
  apiKeyId: uuid,
  keyLimits: z.object({ usd: limit, diem: limit, period: limitPeriodSchema }),
  model: z.object({ id: z.string().min(1).max(200), name: z.string().max(200), type: z.string().min(1).max(32) }),
  pricing: modelPricingSchema,
  worstCase: usageSchema,
  ttlMs: z.number().int().positive().optional(),
});

export const settleSchema = z.object({
  reservationId: uuid,
  source: z.enum(['service', 'gateway']),
  outcome: z.enum(['completed', 'cut', 'failed']),
  usage: settledUsageSchema.nullable(),
  executionMs: z.number().int().nonnegative().max(2_147_483_647).optional(),
});

export type ReserveInput = z.output<typeof reserveSchema>;
export type SettleInput = z.output<typeof settleSchema>;
