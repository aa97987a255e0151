import { SpeechFormat, TranscriptSegment, TranscriptWord } from '@svc/contracts';

export interface SpeakRequest {
  input: string;
  voice: string;
  format: SpeechFormat;
  speed: number;
  language?: string;
  /** OpenAI's delivery instructions; engines that cannot use them ignore them. */
  instructions?: string;
  signal: AbortSignal;
  /** Called after each piece of the input is synthesized (asynchronous jobs report progress). */
  onProgress?: (done: number, total: number) => void;
}

export interface SpeakResult {
  /** The whole encoded audio when no `onAudio` was given; empty when it was streamed. */
  audio: Buffer;
  /** Characters synthesized: what the request is billed for. */
  characters: number;
}

/**
 * Called with encoded audio as it is produced. The engine awaits it before producing more,
 * so a slow reader slows synthesis down.
 */
export type OnAudio = (chunk: Buffer) => Promise<void>;

export interface SpeechEngine {
  readonly kind: 'embedded' | 'upstream';
  ready(): Promise<void>;
  speak(request: SpeakRequest, onAudio?: OnAudio): Promise<SpeakResult>;
  /** Registers a voice sample under `handle` (later passed as `voice`); absent: the engine cannot clone. */
  cloneVoice?(sample: Buffer, handle: string, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export interface TranscribeRequest {
  /** The uploaded file as sent (any container ffmpeg reads). */
  audio: Buffer;
  /** Its duration (ffprobe), already checked against the limits. */
  durationMs: number;
  language?: string;
  timestamps: boolean;
  /** `translate`: English text whatever the spoken language (engines that only know English transcribe). */
  task?: 'transcribe' | 'translate';
  signal: AbortSignal;
}

export interface TranscribeResult {
  text: string;
  words: TranscriptWord[];
  segments: TranscriptSegment[];
  language: string;
}

export interface TranscriptionEngine {
  readonly kind: 'embedded' | 'upstream';
  ready(): Promise<void>;
  transcribe(request: TranscribeRequest): Promise<TranscribeResult>;
  close(): Promise<void>;
}

/** The caller went away or the job was cancelled: nobody sees this error. */
export class AudioAbortedError extends Error {
  override name = 'AudioAbortedError';
}
