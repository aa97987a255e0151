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
  /** OpenAI's delivery instructions (gpt-4o-mini-tts): passed to upstream engines; Flite ignores them. */
  instructions: z.string().max(4096).optional(),
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
export type QueueAudioDto = z.infer<typeof queueAudioSchema>;

export const quoteAudioSchema = z
  .object({
    model: z.string().min(1).max(256),
    duration_seconds: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).optional(),
    character_count: z.number().int().positive().optional(),
  })
  .strict();
export type QuoteAudioDto = z.infer<typeof quoteAudioSchema>;

export const retrieveAudioSchema = z
  .object({
    model: z.string().min(1).max(256),
    queue_id: z.string().uuid(),
    delete_media_on_completion: z.boolean().default(false),
  })
  .strict();
export type RetrieveAudioDto = z.infer<typeof retrieveAudioSchema>;

export const completeAudioSchema = z.object({ model: z.string().min(1).max(256), queue_id: z.string().uuid() }).strict();
export type CompleteAudioDto = z.infer<typeof completeAudioSchema>;

const boolField = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((v) => v === true || v === 'true' || v === '1')
  .default(false);

export const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** `POST /audio/transcriptions` (multipart fields as strings; `file` already read into a Buffer). */
export const transcriptionRequestSchema = z
  .object({
    file: z.instanceof(Buffer, { message: 'file is required: upload the audio as a multipart file field' }),
    model: z.string().min(1).max(256).default('default'),
    response_format: z.enum(TRANSCRIPT_FORMATS).default('json'),
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

/**
 * `POST /audio/translations` (OpenAI's shape: English text from speech in any language). `language`
 * is ours: the spoken language, checked against the model's `languages` (docs/audio.md).
 */
export const translationRequestSchema = z
  .object({
    file: transcriptionRequestSchema.shape.file,
    model: z.string().min(1).max(256).default('default'),
    response_format: z.enum(TRANSCRIPT_FORMATS).default('json'),
    language: z.string().min(2).max(16).optional(),
    prompt: z.string().optional(),
    temperature: z.union([z.number(), z.string()]).optional(),
  })
  .strict();
export type TranslationRequestDto = z.infer<typeof translationRequestSchema>;

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Translations from a spoken language the model does not know are refused: an English-only
 * recognizer would write English-sounding words, not a translation.
 */
export function checkSpokenLanguage(model: ModelDefinition, language: string | undefined): void {
  const languages = stringList(model.constraints.languages);
  if (!language || languages.length === 0 || languages.includes(language.toLowerCase())) return;
  const message = `${model.id} recognizes ${languages.join(', ')} speech only, so it cannot translate from "${language}". Omit language for ${languages.join(', ')} audio, or use a model that knows "${language}".`;
  throw new DomainError(ErrorCode.Validation, message, { _errors: [], language: { _errors: [message] } });
}

/** The model's `voice_aliases` (OpenAI voice names to its own voices, docs/audio.md). */
function aliasesOf(model: ModelDefinition): Record<string, string> {
  const value = model.constraints.voice_aliases;
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** A cloned voice's handle (`POST /audio/voices`), for a model that clones. */
const CLONED_VOICE = /^vv_[0-9a-f]{24}$/;

/**
 * The voice to use: the request's (an OpenAI name mapped through the model's `voice_aliases`, or
 * a cloned-voice handle on a model that clones), checked against the model's `voices`, or the
 * model's default.
 */
export function voiceFor(model: ModelDefinition, requested: string | undefined): string {
  const voices = stringList(model.constraints.voices);
  const fallback = typeof model.constraints.default_voice === 'string' ? model.constraints.default_voice : voices[0];
  if (requested && model.constraints.voice_cloning && CLONED_VOICE.test(requested)) return requested;
  const aliases = aliasesOf(model);
  const voice = requested === undefined ? fallback : voices.includes(requested) ? requested : (aliases[requested.toLowerCase()] ?? requested);
  if (!voice) throw new DomainError(ErrorCode.Validation, `Model ${model.id} has no voices configured.`);
  if (voices.length > 0 && !voices.includes(voice)) {
    const valid = [...voices, ...Object.keys(aliases)].join(', ');
    const message = `Voice "${voice}" is not available for ${model.id}. Valid voices: ${valid}.`;
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
