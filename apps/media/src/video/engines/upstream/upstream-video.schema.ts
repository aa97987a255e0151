import { z } from 'zod';

/**
 * The part of the OpenAI videos API's `Video` object the adapter reads (`POST /videos`,
 * `GET /videos/{id}`). Unknown fields are allowed: servers add their own.
 */
export const upstreamVideoSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/),
  status: z.enum(['queued', 'in_progress', 'completed', 'failed']),
  /** Percent, 0-100 (clamped by the engine: servers overshoot). */
  progress: z.number().nullish(),
  error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
export type UpstreamVideo = z.infer<typeof upstreamVideoSchema>;
