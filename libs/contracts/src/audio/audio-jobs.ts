import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { InlineOrBlob } from '../schemas/inline-or-blob';
import { SpeechFormat } from './speech';

/** `POST /audio/queue` for a speech model: long text rendered in the background. */
export interface QueueAudioParams {
  model: string;
  prompt: string;
  voice: string;
  response_format: SpeechFormat;
  speed: number;
  language?: string;
}

export interface QueueAudioRequest {
  caller: CallerContext;
  params: QueueAudioParams;
  /** The reservation held at queue time; the worker settles it once when the job ends. */
  billing?: RequestBilling;
}

export interface QueueAudioReply {
  model: string;
  queue_id: string;
  status: 'QUEUED';
}

export interface AudioJobRef {
  caller: CallerContext;
  model: string;
  queueId: string;
}

export interface RetrieveAudioRequest extends AudioJobRef {
  deleteMediaOnCompletion: boolean;
}

export type RetrieveAudioReply =
  | { status: 'QUEUED' | 'PROCESSING'; average_execution_time: number; execution_duration: number; progress: number }
  | { status: 'COMPLETED'; contentType: string; audio: InlineOrBlob }
  | { status: 'FAILED'; error: string };

export interface CompleteAudioReply {
  success: boolean;
}
