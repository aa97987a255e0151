import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { AudioPayload } from './audio-payload';

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
}

export interface TranscriptionParams {
  model: string;
  timestamps: boolean;
  language?: string;
}

/** Checks an upload is decodable audio within the limits, before admission prices it. */
export interface ProbeAudioRequest {
  caller: CallerContext;
  /** The transcription model, whose duration limit applies. */
  model: string;
  audio: AudioPayload;
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
  audio: AudioPayload;
  billing?: RequestBilling;
}

export interface TranscribeReply {
  text: string;
  /** Seconds. */
  duration: number;
  language: string;
  timestamps?: { word: TranscriptWord[]; segment: TranscriptSegment[] };
}
