import { z } from 'zod';
import { currencySchema, limitPeriodSchema, uuid } from '../shared/schemas';

const isoTimestamp = z.iso.datetime({ message: 'must be an ISO 8601 date-time in UTC, e.g. 2026-06-01T00:00:00Z' });
const isoDate = z.iso.date({ message: 'must be a date, YYYY-MM-DD' });

export const MAX_LOOKBACK_DAYS = 90;

export const usageHistorySchema = z
  .object({
    accountId: uuid,
    cursor: z.string().max(512).regex(/^[A-Za-z0-9_-]+$/, 'must be a cursor from a previous response').optional(),
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

export const usageAnalyticsSchema = z
  .object({
    accountId: uuid,
    lookbackDays: z.number().int().min(1).max(MAX_LOOKBACK_DAYS).optional(),
    startDate: isoDate.optional(),
    endDate: isoDate.optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.startDate === undefined) !== (v.endDate === undefined)) ctx.addIssue({ code: 'custom', path: [v.startDate ? 'endDate' : 'startDate'], message: 'startDate and endDate go together' });
    if (v.startDate && v.endDate) {
      const days = (Date.parse(v.endDate) - Date.parse(v.startDate)) / 86_400_000 + 1;
      if (days < 1) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
      if (days > MAX_LOOKBACK_DAYS) ctx.addIssue({ code: 'custom', path: ['endDate'], message: `the range may span at most ${MAX_LOOKBACK_DAYS} days` });
    }
  });

export const keyUsageSchema = z.object({
  accountId: uuid,
  keys: z.array(z.object({ id: uuid, limitPeriod: limitPeriodSchema })).max(1000),
});

export type UsageHistoryInput = z.output<typeof usageHistorySchema>;
export type UsageAnalyticsInput = z.output<typeof usageAnalyticsSchema>;
export type KeyUsageInput = z.output<typeof keyUsageSchema>;
