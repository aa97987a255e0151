import { FastifyReply } from 'fastify';
import { HEADER } from '@svc/headers';

/** The image response headers of the spec ("Response headers"); names live in `@svc/headers`. */
export function setImageHeaders(reply: FastifyReply, o: { blurred: boolean; contentViolation: boolean; enhancedPrompt?: string | null }): void {
  reply.header(HEADER.isBlurred, String(o.blurred));
  reply.header(HEADER.isContentViolation, String(o.contentViolation));
  if (o.enhancedPrompt) reply.header(HEADER.enhancedPrompt, encodeURIComponent(o.enhancedPrompt));
}

export const MIME: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
