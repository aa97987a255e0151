import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { videoUsageSchema } from '../billing/schemas';
import { callerContextSchema } from '../schemas/caller';
import { blobRefSchema, modelIdSchema, textSchema } from '../schemas/wire';

const queueId = z.string().min(1).max(100);

/** `media.cmd.video-probe` (ProbeVideoRequest). */
export const probeVideoRequestSchema = z.looseObject({ caller: callerContextSchema, video: blobRefSchema });

/** `media.cmd.audio-probe` (ProbeAudioClipRequest). */
export const probeAudioClipRequestSchema = z.looseObject({ caller: callerContextSchema, audio: blobRefSchema, field: z.string().min(1).max(64) });

/** `media.cmd.video-queue` (QueueVideoRequest). */
export const queueVideoRequestSchema = z.looseObject({
  caller: callerContextSchema,
  job: z.looseObject({
    model: modelIdSchema,
    prompt: textSchema(20_000),
    negativePrompt: textSchema(20_000).optional(),
    durationSeconds: z.number().positive().max(3600),
    width: z.number().int().positive().max(8192),
    height: z.number().int().positive().max(8192),
    fps: z.number().positive().max(240),
    seed: z.number().int().optional(),
    image: blobRefSchema.optional(),
    video: blobRefSchema.optional(),
    options: z.record(z.string(), z.unknown()),
  }),
  usage: videoUsageSchema,
  billing: requestBillingSchema.optional(),
  storeOutput: z.boolean(),
});

/** `media.cmd.video-complete` (VideoJobRef) and, with its flag, `media.cmd.video-retrieve`. */
export const videoJobRefSchema = z.looseObject({ caller: callerContextSchema, model: modelIdSchema, queueId });
export const retrieveVideoRequestSchema = videoJobRefSchema.extend({ deleteMediaOnCompletion: z.boolean() });
/** `media.cmd.video-download` (DownloadVideoRequest). */
export const downloadVideoRequestSchema = z.looseObject({ queueId });
