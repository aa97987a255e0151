import { z } from 'zod';
import { requestBillingSchema } from '../billing/message-schemas';
import { callerContextSchema } from '../schemas/caller';
import { inlineOrBlobSchema } from '../schemas/inline-or-blob';
import { modelIdSchema, streamOpenRequestSchema, textSchema } from '../schemas/wire';
import { SPEECH_FORMATS } from './speech';

const speechFields = {
  model: modelIdSchema,
  voice: z.string().min(1).max(100),
  response_format: z.enum(SPEECH_FORMATS),
  speed: z.number().min(0.1).max(10),
  language: z.string().min(1).max(32).optional(),
  instructions: z.string().max(4096).optional(),
};

/** `audio.cmd.speech` (SpeechRequest). */
export const speechRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: z.looseObject({ ...speechFields, input: textSchema(200_000) }),
  billing: requestBillingSchema.optional(),
});
/** `audio.stream.speech` (StreamSpeechRequest). */
export const streamSpeechRequestSchema = speechRequestSchema.extend({ stream: streamOpenRequestSchema });

/** `audio.cmd.probe` (ProbeAudioRequest). */
export const probeAudioRequestSchema = z.looseObject({ caller: callerContextSchema, model: modelIdSchema, audio: inlineOrBlobSchema, keep: z.boolean() });

/** `audio.cmd.transcribe` (TranscribeRequest). */
export const transcribeRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: z.looseObject({
    model: modelIdSchema,
    timestamps: z.boolean(),
    language: z.string().min(1).max(32).optional(),
    task: z.enum(['transcribe', 'translate']).optional(),
  }),
  audio: inlineOrBlobSchema,
  billing: requestBillingSchema.optional(),
});

/** `audio.cmd.queue` (QueueAudioRequest). */
export const queueAudioRequestSchema = z.looseObject({
  caller: callerContextSchema,
  params: z.looseObject({ ...speechFields, prompt: textSchema(1_000_000) }),
  billing: requestBillingSchema.optional(),
});

/** `audio.cmd.complete` (AudioJobRef) and, with its flag, `audio.cmd.retrieve`. */
export const audioJobRefSchema = z.looseObject({ caller: callerContextSchema, model: modelIdSchema, queueId: z.string().min(1).max(100) });
export const retrieveAudioRequestSchema = audioJobRefSchema.extend({ deleteMediaOnCompletion: z.boolean() });

/** `audio.cmd.clone-voice` (CloneVoiceRequest). */
export const cloneVoiceRequestSchema = z.looseObject({
  caller: callerContextSchema,
  model: modelIdSchema,
  audio: inlineOrBlobSchema,
  billing: requestBillingSchema.optional(),
});
