import { z } from 'zod';

/** `POST /augment/search`. `search_provider` is accepted for compatibility; the operator's provider answers. */
export const augmentSearchSchema = z.object({
  query: z.string().trim().min(1, 'query is required').max(400, 'query must be at most 400 characters'),
  limit: z.number().int().min(1).max(20).default(10),
  search_provider: z.string().optional(),
});

export type AugmentSearchDto = z.infer<typeof augmentSearchSchema>;

/** `POST /augment/scrape`. */
export const augmentScrapeSchema = z.object({
  url: z
    .string()
    .min(1, 'url is required')
    .max(4096)
    .refine((v) => URL.canParse(v), 'url must be an absolute URL'),
});

export type AugmentScrapeDto = z.infer<typeof augmentScrapeSchema>;

/** `POST /augment/text-parser` (multipart: `file` already read into a Buffer). */
export const textParserSchema = z.object({
  file: z.instanceof(Buffer, { message: 'file is required: upload the document as a multipart file field' }),
  response_format: z.enum(['json', 'text']).default('json'),
});

export type TextParserDto = z.infer<typeof textParserSchema>;

/** Largest document accepted (the reference's limit). */
export const TEXT_PARSER_MAX_BYTES = 25 * 1024 * 1024;

/** Parts of a multipart upload that are not fields: the file's name and media type. */
export interface FilePart {
  type?: string;
  filename?: string;
  mimetype?: string;
}

/** The `file` part of a multipart body as @fastify/multipart attached it, if there is one. */
export function filePartOf(body: unknown): FilePart | undefined {
  const raw = (body as Record<string, unknown> | null)?.file;
  const part = (Array.isArray(raw) ? raw[0] : raw) as FilePart | undefined;
  return part?.type === 'file' ? part : undefined;
}
