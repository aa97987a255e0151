import { QueueAudioParams, RequestBilling } from '@svc/contracts';

/** What a queued job carries in Redis. The text is cleared once the job has finished. */
export interface AudioJobData {
  accountId: string;
  requestId: string;
  params: QueueAudioParams;
  billing?: RequestBilling;
  characters: number;
}

/** A finished job's result: the audio itself is a blob that expires with the result TTL. */
export interface AudioJobResult {
  blobId: string;
  bytes: number;
  contentType: string;
  characters: number;
  executionMs: number;
}

export const AUDIO_QUEUE_NAME = 'speech';
