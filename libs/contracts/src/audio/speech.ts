import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { StreamOpenRequest } from '../stream/frames';
import { InlineOrBlob } from '../schemas/inline-or-blob';

export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

/** `POST /audio/speech` as validated by the gateway (model resolved to its catalog id). */
export interface SpeechParams {
  model: string;
  input: string;
  voice: string;
  response_format: SpeechFormat;
  speed: number;
  language?: string;
  /** OpenAI's delivery instructions: passed to upstream engines; the embedded Flite ignores them. */
  instructions?: string;
}

export interface SpeechRequest {
  caller: CallerContext;
  params: SpeechParams;
  /** Present when the gateway reserved credit: the audio service settles it with exact characters. */
  billing?: RequestBilling;
}

export interface SpeechReply {
  contentType: string;
  audio: InlineOrBlob;
  characters: number;
}

/** Streaming speech: each chunk frame's body is raw encoded audio bytes (docs/audio.md). */
export interface StreamSpeechRequest extends SpeechRequest {
  stream: StreamOpenRequest;
}
