import { z } from 'zod';
import { leaseCloseRequestSchema, leaseOpenRequestSchema, settleBatchItemsSchema } from '@svc/contracts';
import { settleSchema } from '../reservations/reservation.schemas';

/** `billing.cmd.settle-batch`, each item with billing's pricing-snapshot check. */
export const settleBatchSchema = settleBatchItemsSchema(settleSchema);

export type LeaseOpenInput = z.output<typeof leaseOpenRequestSchema>;
export type LeaseCloseInput = z.output<typeof leaseCloseRequestSchema>;
