import {
  CompleteVideoReply,
  DownloadVideoReply,
  DownloadVideoRequest,
  ProbeAudioClipReply,
  ProbeAudioClipRequest,
  ProbeVideoReply,
  ProbeVideoRequest,
  QueueVideoReply,
  QueueVideoRequest,
  RetrieveVideoReply,
  RetrieveVideoRequest,
  VideoJobRef,
} from './video-jobs';

/** Video jobs in the media service (docs/video.md). */
export const VIDEO = {
  PROBE: 'media.cmd.video-probe.v1',
  PROBE_AUDIO: 'media.cmd.audio-probe.v1',
  QUEUE: 'media.cmd.video-queue.v1',
  RETRIEVE: 'media.cmd.video-retrieve.v1',
  COMPLETE: 'media.cmd.video-complete.v1',
  DOWNLOAD: 'media.cmd.video-download.v1',
} as const;

export interface VideoRpc {
  [VIDEO.PROBE]: { req: ProbeVideoRequest; res: ProbeVideoReply };
  [VIDEO.PROBE_AUDIO]: { req: ProbeAudioClipRequest; res: ProbeAudioClipReply };
  [VIDEO.QUEUE]: { req: QueueVideoRequest; res: QueueVideoReply };
  [VIDEO.RETRIEVE]: { req: RetrieveVideoRequest; res: RetrieveVideoReply };
  [VIDEO.COMPLETE]: { req: VideoJobRef; res: CompleteVideoReply };
  [VIDEO.DOWNLOAD]: { req: DownloadVideoRequest; res: DownloadVideoReply };
}
