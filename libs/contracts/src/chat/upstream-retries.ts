import { z } from 'zod';

/**
 * `upstreamRetries`: how many times the chat service retried the model server behind an answer
 * (connect errors, 502/503 before any byte; docs/chat.md, "Upstream routing"). On a completion
 * reply and on a stream's first chunk, only when above 0; the gateway sends it as `x-retry-count`
 * and takes it off the body.
 */
export const upstreamRetriesSchema = z.number().int().positive().max(1_000);

/** The retries a service reported, or 0 when absent or not a valid count. */
export function upstreamRetriesOf(value: unknown): number {
  const parsed = upstreamRetriesSchema.safeParse(value);
  return parsed.success ? parsed.data : 0;
}

/** `{upstreamRetries}` when there were any, else nothing (spread into a reply or a first chunk). */
export function withUpstreamRetries(retries: number): { upstreamRetries?: number } {
  return retries > 0 ? { upstreamRetries: retries } : {};
}
