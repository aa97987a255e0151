import { z } from 'zod';
import { MODERATION_MAX_IMAGES, MODERATION_MAX_PARTS, MODERATION_MAX_TEXTS } from '@svc/contracts';
import { DomainError } from '@svc/errors';

/** The most UTF-8 bytes of text in one request (texts travel inline in one NATS message). */
export const MODERATION_MAX_TEXT_BYTES = 512 * 1024;

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  /** An http(s) URL (fetched through the SSRF guard) or a data URL / base64 image. */
  image_url: z.object({ url: z.string().min(1, 'image_url.url is required') }),
});
const partSchema = z.discriminatedUnion('type', [textPart, imagePart], {
  error: 'each item must be {type: "text", text} or {type: "image_url", image_url: {url}}',
});

/** `POST /moderations` (OpenAI's CreateModerationRequest). Undocumented fields pass without validation. */
export const moderationsRequestSchema = z.object({
  /** A `moderation` model (id, trait or compatibility name); absent: the catalog's `default`, or for text the first model that reads text. */
  model: z.string().min(1).optional(),
  input: z.union(
    [
      z.string(),
      z.array(z.string()).min(1, 'input must have at least one item').max(MODERATION_MAX_TEXTS, `input must have at most ${MODERATION_MAX_TEXTS} strings`),
      z
        .array(partSchema)
        .min(1, 'input must have at least one item')
        .max(MODERATION_MAX_PARTS, `input must have at most ${MODERATION_MAX_PARTS} parts`)
        .refine(
          (parts) => parts.filter((p) => p.type === 'image_url').length <= MODERATION_MAX_IMAGES,
          `input may hold at most ${MODERATION_MAX_IMAGES} images`,
        ),
    ],
    { error: 'input must be a string, an array of strings, or an array of {type: "text"} and {type: "image_url"} parts' },
  ),
});
export type ModerationsRequest = z.infer<typeof moderationsRequestSchema>;

/** What the request asks to classify, before its images are fetched. */
export type RequestedInput =
  { kind: 'texts'; texts: string[] } | { kind: 'parts'; parts: Array<{ type: 'text'; text: string } | { type: 'image'; url: string }> };

export function requestedInputOf(request: ModerationsRequest): RequestedInput {
  const input = request.input;
  if (typeof input === 'string') return { kind: 'texts', texts: [input] };
  if (input.every((item): item is string => typeof item === 'string')) return { kind: 'texts', texts: input };
  const parts = (input as Array<z.infer<typeof partSchema>>).map((p) =>
    p.type === 'text' ? { type: 'text' as const, text: p.text } : { type: 'image' as const, url: p.image_url.url },
  );
  return { kind: 'parts', parts };
}

export const hasText = (input: RequestedInput): boolean => input.kind === 'texts' || input.parts.some((p) => p.type === 'text');

/** 400 on `input` past MODERATION_MAX_TEXT_BYTES of text. */
export function checkTextSize(input: RequestedInput): void {
  const texts = input.kind === 'texts' ? input.texts : input.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8'), 0);
  if (bytes > MODERATION_MAX_TEXT_BYTES)
    throw DomainError.validation([{ path: ['input'], message: `at most ${MODERATION_MAX_TEXT_BYTES} bytes of text per request (it has ${bytes})` }]);
}
