import { z } from 'zod';

/** Pieces every service message is built from. Bounds here are structural (what a service can
 * safely take); the public API's own limits are the gateway's, which checks them first. */

/** A reference to bytes parked in the blob store (`@svc/blob-store`). */
export const blobRefSchema = z.looseObject({ blobId: z.string().min(1).max(200), bytes: z.number().int().nonnegative() });

/** The caller's side of a stream (docs/streaming-protocol.md). */
export const streamOpenRequestSchema = z.looseObject({
  inbox: z.string().min(1).max(300),
  window: z.number().int().positive().max(100_000),
  batch: z.boolean().optional(),
});

export const modelIdSchema = z.string().min(1).max(200);
/** Text a service takes: prompts, inputs (large, but bounded well below a NATS message). */
export const textSchema = (max = 1_000_000) => z.string().max(max);
