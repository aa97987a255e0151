import { z } from 'zod';
import { leasedRequestSchema as leasedRequestWireSchema, mayFitLaterRequestSchema, reserveRequestSchema, settleRequestSchema } from '@svc/contracts';
import { modelPricingSchema } from '@svc/pricing';

// The messages are @svc/contracts'; billing also checks the pricing snapshot with @svc/pricing.

export const reserveSchema = reserveRequestSchema.extend({ pricing: modelPricingSchema });

export const mayFitLaterSchema = mayFitLaterRequestSchema.extend({ pricing: modelPricingSchema });

/** A request admitted under a credit lease: what billing needs to create its settled reservation. */
export const leasedRequestSchema = leasedRequestWireSchema.extend({ pricing: modelPricingSchema });

export const settleSchema = settleRequestSchema.extend({ lease: leasedRequestSchema.optional() });

export type ReserveInput = z.output<typeof reserveSchema>;
export type MayFitLaterInput = z.output<typeof mayFitLaterSchema>;
export type SettleInput = z.output<typeof settleSchema>;
export type LeasedRequestInput = z.output<typeof leasedRequestSchema>;
