import { z } from 'zod';

/**
 * `POST /video/transcriptions` (the reference's shape): the transcript of a video (or audio) file
 * at a URL. `model` and `language` are ours, as on `/audio/transcriptions` (docs/audio.md).
 */
export const videoTranscriptionRequestSchema = z
  .object({
    url: z
      .string()
      .trim()
      .min(1)
      .max(2048)
      .regex(/^https?:\/\//i, 'must be an http(s) URL'),
    response_format: z.enum(['json', 'text']).default('json'),
    model: z.string().min(1).max(256).default('default'),
    language: z.string().min(2).max(16).optional(),
  })
  .strict();
export type VideoTranscriptionRequestDto = z.infer<typeof videoTranscriptionRequestSchema>;
