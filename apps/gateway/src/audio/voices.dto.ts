import { z } from 'zod';

/** `POST /audio/voices` (reference CreateClonedVoiceRequestSchema). */
export const cloneVoiceSchema = z
  .object({
    file: z.instanceof(Buffer, { message: 'file is required: upload the voice sample as a multipart file field' }),
    model: z.string().min(1).max(256).default('default'),
  })
  .strict();
export type CloneVoiceDto = z.infer<typeof cloneVoiceSchema>;
