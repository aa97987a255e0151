import { z } from 'zod';
import { BILLING_CURRENCIES } from '@svc/contracts';

const MAX_LOOKBACK_DAYS = 90;

/** GET /billing/usage-history query. A cursor carries the filters of its walk (checked by billing). */
export const usageHistoryQuery = z.object({
  currency: z.enum(BILLING_CURRENCIES).optional(),
  cursor: z
    .string()
    .max(512)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be the nextCursor of a previous page')
    .optional(),
  startTimestamp: z.string().max(40).optional(),
  endTimestamp: z.string().max(40).optional(),
  pageSize: z.coerce.number().int().min(10).max(1000).optional(),
});

/** GET /billing/usage-analytics query: `lookback` (e.g. 7d, 30d; at most 90d), or startDate and endDate. */
export const usageAnalyticsQuery = z
  .object({
    lookback: z
      .string()
      .regex(/^[1-9]\d*d$/, 'must be a number of days followed by "d", e.g. 7d')
      .refine((v) => Number(v.slice(0, -1)) <= MAX_LOOKBACK_DAYS, `must be at most ${MAX_LOOKBACK_DAYS}d`)
      .optional(),
    startDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
      .optional(),
    endDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
      .optional(),
  })
  .refine((q) => (q.startDate === undefined) === (q.endDate === undefined), { message: 'startDate and endDate go together', path: ['endDate'] });

export type UsageHistoryQuery = z.infer<typeof usageHistoryQuery>;
export type UsageAnalyticsQuery = z.infer<typeof usageAnalyticsQuery>;
