import { z } from 'zod';
import { SETTLE_BATCH_MAX } from './lease';
import { currencySchema, limitPeriodSchema, nanoSchema, settledUsageSchema, usageSchema, uuid } from './schemas';

// The billing service's messages. A model's pricing snapshot travels as `unknown` here: billing
// checks it with @svc/pricing's schema (`.extend({ pricing: modelPricingSchema })`), which
// contracts may not import.

const limit = z.number().nonnegative().max(9_999_999_999).nullable();
export const billedModelSchema = z.object({ id: z.string().min(1).max(200), name: z.string().max(200), type: z.string().min(1).max(32) });

/** `billing.cmd.reserve` */
export const reserveRequestSchema = z.object({
  reservationId: uuid,
  requestId: z.string().min(1).max(64),
  accountId: uuid,
  apiKeyId: uuid,
  keyLimits: z.object({ usd: limit, diem: limit, period: limitPeriodSchema }),
  model: billedModelSchema,
  pricing: z.unknown(),
  worstCase: usageSchema,
  ttlMs: z.number().int().positive().optional(),
});

/** `billing.query.may-fit-later` */
export const mayFitLaterRequestSchema = reserveRequestSchema.omit({ reservationId: true, ttlMs: true });

/** `LeasedRequest`: a request admitted under a credit lease. */
export const leasedRequestSchema = z.object({
  leaseId: uuid,
  apiKeyId: uuid.optional(),
  currency: currencySchema,
  heldNano: nanoSchema,
  requestId: z.string().min(1).max(64),
  model: billedModelSchema,
  pricing: z.unknown(),
  worstCase: usageSchema,
});

/** `RequestBilling`: what a service needs to settle the request it runs (passed by the gateway). */
export const requestBillingSchema = z.object({ reservationId: uuid, lease: leasedRequestSchema.optional() });

/** `billing.cmd.settle`, and each item of `billing.cmd.settle-batch` */
export const settleRequestSchema = z.object({
  reservationId: uuid,
  source: z.enum(['service', 'gateway']),
  outcome: z.enum(['completed', 'cut', 'failed']),
  usage: settledUsageSchema.nullable(),
  executionMs: z.number().int().nonnegative().max(2_147_483_647).optional(),
  lease: leasedRequestSchema.optional(),
});

/** `billing.cmd.lease-open` */
export const leaseOpenRequestSchema = z
  .object({
    leaseId: uuid,
    accountId: uuid,
    apiKeyId: uuid.nullable(),
    keyLimits: z.object({ usd: limit, diem: limit, period: limitPeriodSchema }),
    unitNano: z.object({ usd: nanoSchema, diem: nanoSchema }),
  })
  .refine((v) => v.apiKeyId !== null || (v.keyLimits.usd === null && v.keyLimits.diem === null), {
    message: 'consumption limits need the key they belong to (apiKeyId)',
    path: ['apiKeyId'],
  });

/** `billing.cmd.lease-close` */
export const leaseCloseRequestSchema = z.object({
  leaseId: uuid,
  admitted: z.number().int().nonnegative().max(2_147_483_647),
  admittedNano: nanoSchema,
});

/** The most items one `billing.cmd.settle-batch` may carry. */
export const settleBatchItemsSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item).max(SETTLE_BATCH_MAX) });

const isoTimestamp = z.iso.datetime({ message: 'must be an ISO 8601 date-time in UTC, e.g. 2026-06-01T00:00:00Z' });
const isoDate = z.iso.date({ message: 'must be a date, YYYY-MM-DD' });

/** The longest period usage analytics covers. */
export const MAX_LOOKBACK_DAYS = 90;

/** `billing.cmd.usage-history` */
export const usageHistoryRequestSchema = z
  .object({
    accountId: uuid,
    cursor: z
      .string()
      .max(512)
      .regex(/^[A-Za-z0-9_-]+$/, 'must be a cursor from a previous response')
      .optional(),
    currency: currencySchema.optional(),
    startTimestamp: isoTimestamp.optional(),
    endTimestamp: isoTimestamp.optional(),
    pageSize: z.number().int().min(10).max(1000).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.cursor && (v.currency || v.startTimestamp || v.endTimestamp || v.pageSize !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'a cursor carries the filters of its walk: send it alone' });
    }
    if (v.startTimestamp && v.endTimestamp && Date.parse(v.endTimestamp) <= Date.parse(v.startTimestamp)) {
      ctx.addIssue({ code: 'custom', path: ['endTimestamp'], message: 'must be later than startTimestamp' });
    }
  });

/** `billing.cmd.usage-analytics` */
export const usageAnalyticsRequestSchema = z
  .object({
    accountId: uuid,
    lookbackDays: z.number().int().min(1).max(MAX_LOOKBACK_DAYS).optional(),
    startDate: isoDate.optional(),
    endDate: isoDate.optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.startDate === undefined) !== (v.endDate === undefined))
      ctx.addIssue({ code: 'custom', path: [v.startDate ? 'endDate' : 'startDate'], message: 'startDate and endDate go together' });
    if (v.startDate && v.endDate) {
      const days = (Date.parse(v.endDate) - Date.parse(v.startDate)) / 86_400_000 + 1;
      if (days < 1) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
      if (days > MAX_LOOKBACK_DAYS) ctx.addIssue({ code: 'custom', path: ['endDate'], message: `the range may span at most ${MAX_LOOKBACK_DAYS} days` });
    }
  });

/** `billing.cmd.key-usage` */
export const keyUsageRequestSchema = z.object({
  accountId: uuid,
  keys: z.array(z.object({ id: uuid, limitPeriod: limitPeriodSchema })).max(1000),
});

/** BILLING.ACCOUNT_CHANGED, as a gateway checks it before acting on it. */
export const accountChangedEventSchema = z.object({ accountId: uuid });
