import { RequestBilling, VideoBlob, VideoJobSpec, VideoUsage } from '@svc/contracts';

/** What a queued video job carries in Redis. The prompt is blanked and the inputs deleted once it has finished. */
export interface VideoJobData {
  accountId: string;
  requestId: string;
  job: VideoJobSpec;
  usage: VideoUsage;
  billing?: RequestBilling;
  storeOutput: boolean;
  /** The upstream server's id of this job's work (upstream engines): a later attempt resumes it. */
  upstreamJobId?: string;
}

/** A finished job: the video is a blob that expires with the result TTL (24 h with a download URL). */
export interface VideoJobResult {
  video: VideoBlob;
  contentType: string;
  durationSeconds: number;
  executionMs: number;
}

export const VIDEO_QUEUE_NAME = 'video';
