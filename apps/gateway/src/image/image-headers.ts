import { FastifyReply } from 'fastify';

/** Image response headers (spec "Response headers"). Candidates for libs/headers' HEADER map. */
export const IMAGE_HEADER = {
  isBlurred: 'x-svc-is-blurred',
  isContentViolation: 'x-svc-is-content-violation',
  enhancedPrompt: 'x-svc-enhanced-prompt',
} as const;

export function setImageHeaders(reply: FastifyReply, o: { blurred: boolean; contentViolation: boolean; enhancedPrompt?: string | null }): void {
  reply.header(IMAGE_HEADER.isBlurred, String(o.blurred));
  reply.header(IMAGE_HEADER.isContentViolation, String(o.contentViolation));
  if (o.enhancedPrompt) reply.header(IMAGE_HEADER.enhancedPrompt, encodeURIComponent(o.enhancedPrompt));
}

export const MIME: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
