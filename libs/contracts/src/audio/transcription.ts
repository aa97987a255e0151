import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { InlineOrBlob } from '../schemas/inline-or-blob';

export interface TranscriptWord {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
}

export interface TranscriptSegment {
  text: string;
  start: number;
  end: number;
  /** Whisper's per-segment fields, when an upstream engine reports them (docs/audio.md). */
  seek?: number;
  tokens?: number[];
  temperature?: number;
  avg_logprob?: number;
  compression_ratio?: number;
  no_speech_prob?: number;
}

export interface TranscriptionParams {
  model: string;
  timestamps: boolean;
  language?: string;
  /** `translate`: English text from speech in any language (`POST /audio/translations`). */
  task?: 'transcribe' | 'translate';
}

/** Checks an upload is decodable audio within the limits, before admission prices it. */
export interface ProbeAudioRequest {
  caller: CallerContext;
  /** The transcription model, whose duration limit applies. */
  model: string;
  audio: InlineOrBlob;
  /** Keep the blob for the transcription that follows (a probe of inline audio keeps nothing). */
  keep: boolean;
}

export interface ProbeAudioReply {
  durationMs: number;
  /** ffprobe's container name, e.g. `wav`, `mp3`, `ogg`. */
  container: string;
}

export interface TranscribeRequest {
  caller: CallerContext;
  params: TranscriptionParams;
  audio: InlineOrBlob;
  billing?: RequestBilling;
}

export interface TranscribeReply {
  text: string;
  /** Seconds. */
  duration: number;
  language: string;
  timestamps?: { word: TranscriptWord[]; segment: TranscriptSegment[] };
}
