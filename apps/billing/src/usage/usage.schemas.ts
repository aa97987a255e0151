import { z } from 'zod';
import { keyUsageRequestSchema, usageAnalyticsRequestSchema, usageHistoryRequestSchema } from '@svc/contracts';

// The message schemas are @svc/contracts' (billing/message-schemas.ts).
export type UsageHistoryInput = z.output<typeof usageHistoryRequestSchema>;
export type UsageAnalyticsInput = z.output<typeof usageAnalyticsRequestSchema>;
export type KeyUsageInput = z.output<typeof keyUsageRequestSchema>;
