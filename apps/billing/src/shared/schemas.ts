// The billing wire schemas live in @svc/contracts (one schema per message, shared by both sides).
export { accountRefSchema, consumptionOrderSchema, currencySchema, limitPeriodSchema, nanoSchema, settledUsageSchema, usageSchema, uuid } from '@svc/contracts';
