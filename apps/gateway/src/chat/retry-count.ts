import { FastifyReply } from 'fastify';
import { upstreamRetriesOf } from '@svc/contracts';
import { HEADER } from '@svc/headers';

/** `x-retry-count` when the chat service reported model-server retries (above 0) for this answer. */
export function setRetryCount(reply: FastifyReply, upstreamRetries: unknown): void {
  const retries = upstreamRetriesOf(upstreamRetries);
  if (retries > 0) reply.header(HEADER.retryCount, String(retries));
}

/**
 * A stream's first chunk as the client gets it: its `upstreamRetries` (service to gateway only)
 * moved to `x-retry-count` on the reply, whose headers are not sent yet.
 */
export function takeRetryCount(reply: FastifyReply, body: Uint8Array): Uint8Array {
  const json = Buffer.from(body).toString('utf8');
  if (!json.includes('"upstreamRetries"')) return body;
  const { upstreamRetries, ...chunk } = JSON.parse(json) as Record<string, unknown>;
  setRetryCount(reply, upstreamRetries);
  return Buffer.from(JSON.stringify(chunk));
}
