import { z } from 'zod';
import { ModelDefinition } from '@svc/catalog';
import { SPEECH_FORMATS, SpeechFormat } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';

const speechFields = {
  model: z.string().min(1).max(256).default('default'),
  voice: z.string().min(1).max(512).optional(),
  response_format: z.enum(SPEECH_FORMATS).optional(),
  speed: z.number().min(0.25).max(4).default(1),
  language: z.string().min(2).max(32).optional(),
  /** Accepted for compatibility; ignored by the embedded engines. */
  prompt: z.string().max(500).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
};

/** `POST /audio/speech` (reference CreateSpeechRequestSchema). */
export const speechRequestSchema = z
  .object({
    input: z.string().min(1).max(4096),
    ...speechFields,
    streaming: z.boolean().default(false),
    /** OpenAI's name for `streaming` with SSE; only raw audio streaming is offered. */
    stream_format: z.enum(['audio']).optional(),
  })
  .strict();
export type SpeechRequestDto = z.infer<typeof speechRequestSchema>;

/** `POST /audio/queue` for a speech model: `prompt` is the text to read. */
export const queueAudioSchema = z
  .object({
    model: z.string().min(1).max(256),
    prompt: z.string().min(1),
    voice: z.string().min(1).max(512).optional(),
    response_format: z.enum(SPEECH_FORMATS).optional(),
    speed: z.number().min(0.25).max(4).default(1),
    language_code: z.string().min(2).max(32).optional(),
    duration_seconds: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).optional(),
  })
  .strict();

export const quoteAudioSchema = z
  .object({
    model: z.string().min(1).max(256),
    duration_seconds: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).optional(),
    character_count: z.number().int().positive().optional(),
  })
  .strict();

export const retrieveAudioSchema = z
  .object({
    model: z.string().min(1).max(256),
    queue_id: z.string().uuid(),
    delete_media_on_completion: z.boolean().default(false),
  })
  .strict();

export const completeAudioSchema = z.object({ model: z.string().min(1).max(256), queue_id: z.string().uuid() }).strict();

const boolField = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((v) => v === true || v === 'true' || v === '1')
  .default(false);

/** `POST /audio/transcriptions` (multipart fields as strings; `file` already read into a Buffer). */
export const transcriptionRequestSchema = z
  .object({
    file: z.instanceof(Buffer, { message: 'file is required: upload the audio as a multipart file field' }),
    model: z.string().min(1).max(256).default('default'),
    response_format: z.enum(['json', 'text', 'verbose_json']).default('json'),
    timestamps: boolField,
    language: z.string().min(2).max(16).optional(),
    /** OpenAI clients: `timestamp_granularities[]=word|segment` asks for timestamps. */
    'timestamp_granularities[]': z.union([z.string(), z.array(z.string())]).optional(),
    timestamp_granularities: z.union([z.string(), z.array(z.string())]).optional(),
    prompt: z.string().optional(),
    temperature: z.union([z.number(), z.string()]).optional(),
  })
  .strict();
export type TranscriptionRequestDto = z.infer<typeof transcriptionRequestSchema>;

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The voice to use: the request's, checked against the model's `voices`, or the model's default. */
export function voiceFor(model: ModelDefinition, requested: string | undefined): string {
  const voices = stringList(model.constraints.voices);
  const fallback = typeof model.constraints.default_voice === 'string' ? model.constraints.default_voice : voices[0];
  const voice = requested ?? fallback;
  if (!voice) throw new DomainError(ErrorCode.Validation, `Model ${model.id} has no voices configured.`);
  if (voices.length > 0 && !voices.includes(voice)) {
    const message = `Voice "${voice}" is not available for ${model.id}. Valid voices: ${voices.join(', ')}.`;
    throw new DomainError(ErrorCode.Validation, message, { _errors: [], voice: { _errors: [message] } });
  }
  return voice;
}

export function formatFor(model: ModelDefinition, requested: SpeechFormat | undefined): SpeechFormat {
  const supported = stringList(model.constraints.supported_formats) as SpeechFormat[];
  const fallback = (typeof model.constraints.default_format === 'string' ? model.constraints.default_format : 'mp3') as SpeechFormat;
  const format = requested ?? fallback;
  if (supported.length > 0 && !supported.includes(format)) {
    const message = `Format "${format}" is not supported by ${model.id}. Supported formats: ${supported.join(', ')}.`;
    throw new DomainError(ErrorCode.Validation, message, { _errors: [], response_format: { _errors: [message] } });
  }
  return format;
}

/** A numeric model constraint, or the fallback. */
export function limitOf(model: ModelDefinition, name: string, fallback: number): number {
  const value = model.constraints[name];
  return typeof value === 'number' && value > 0 ? value : fallback;
}

export function inputTooLong(field: string, length: number, limit: number, modelId: string): DomainError {
  const message = `${field} is ${length} characters; ${modelId} accepts at most ${limit}.`;
  return new DomainError(ErrorCode.Validation, message, { _errors: [], [field]: { _errors: [message] } });
}
