import { z } from 'zod';
import { BATCH_ENDPOINTS } from './batch.types';

export const createBatchSchema = z
  .object({
    input_file_id: z.string().min(1),
    endpoint: z.enum(BATCH_ENDPOINTS),
    completion_window: z.literal('24h'),
    metadata: z
      .record(z.string().max(64), z.string().max(512))
      .refine((m) => Object.keys(m).length <= 16, 'at most 16 keys')
      .nullable()
      .optional(),
  })
  .strict();

/** `GET /files`, as OpenAI's ListFiles: newest first unless `order: asc`, `after` a file id of the previous page. */
export const listFilesSchema = z.object({
  purpose: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().optional(),
});
export type ListFilesQuery = z.infer<typeof listFilesSchema>;

/** `GET /batches`, as OpenAI's ListBatches: newest first, `after` a batch id of the previous page. */
export const listBatchesSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().optional(),
});

export const uploadFileSchema = z.object({
  file: z.instanceof(Buffer, { message: 'a file is required' }),
  purpose: z.string({ message: 'purpose is required' }),
});
