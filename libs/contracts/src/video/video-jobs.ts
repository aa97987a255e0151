import { RequestBilling } from '../billing/subjects';
import { VideoUsage } from '../billing/usage';
import { CallerContext } from '../services';

/** Bytes parked in the blob store by the gateway (inputs) or the media service (results). */
export interface VideoBlob {
  blobId: string;
  bytes: number;
}

/** `media.cmd.video-probe`: what ffprobe measures of an input video (enhancement pricing). */
export interface ProbeVideoRequest {
  caller: CallerContext;
  video: VideoBlob;
}
export interface ProbeVideoReply {
  seconds: number;
  fps: number;
  width: number;
  height: number;
  codec: string;
}

/** `media.cmd.audio-probe`: a reference audio clip's length and container (the queue's 2-15 s WAV/MP3 rule). */
export interface ProbeAudioClipRequest {
  caller: CallerContext;
  audio: VideoBlob;
  /** The request field it came from (`reference_audio_urls.0`), named by a refusal. */
  field: string;
}
export interface ProbeAudioClipReply {
  seconds: number;
  /** ffprobe's container name: `wav`, `mp3`, `ogg`, ... */
  format: string;
}

/** A job as the gateway resolved it: the engine's request (apps/media/src/video/engines/video-engine.ts) with its inputs as blobs. */
export interface VideoJobSpec {
  model: string;
  prompt: string;
  negativePrompt?: string;
  durationSeconds: number;
  width: number;
  height: number;
  fps: number;
  seed?: number;
  image?: VideoBlob;
  video?: VideoBlob;
  /** The request's other fields as given (engine knobs). */
  options: Record<string, unknown>;
}

export interface QueueVideoRequest {
  caller: CallerContext;
  job: VideoJobSpec;
  /** What the job is billed for when it completes (its quote); the hold covers exactly this. */
  usage: VideoUsage;
  /** The reservation held at queue time; the worker settles it once when the job ends. */
  billing?: RequestBilling;
  /** Keep the result for the download URL's lifetime (24 h) instead of the retrieve window. */
  storeOutput: boolean;
}

export interface QueueVideoReply {
  model: string;
  queue_id: string;
}

export interface VideoJobRef {
  caller: CallerContext;
  model: string;
  queueId: string;
}

export interface RetrieveVideoRequest extends VideoJobRef {
  deleteMediaOnCompletion: boolean;
}

export type RetrieveVideoReply =
  | { status: 'PROCESSING'; average_execution_time: number; execution_duration: number; progress: number }
  | { status: 'COMPLETED'; contentType: string; video: VideoBlob }
  | { status: 'FAILED'; error: string };

export interface CompleteVideoReply {
  success: boolean;
}

/** `media.cmd.video-download`: the gateway checked the signed URL; the job id is the authority. */
export interface DownloadVideoRequest {
  queueId: string;
}
export type DownloadVideoReply = { status: 'COMPLETED'; contentType: string; video: VideoBlob } | { status: 'PROCESSING' | 'GONE' };
