import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
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
  VIDEO,
  VideoJobRef,
} from '@svc/contracts';
import { VideoJobsService } from './video-jobs.service';
import { VideoProbeService } from './video-probe.service';

@Controller()
export class VideoJobsHandler {
  constructor(
    private readonly jobs: VideoJobsService,
    private readonly probes: VideoProbeService,
  ) {}

  @MessagePattern(VIDEO.PROBE)
  probe(@Payload() request: ProbeVideoRequest): Promise<ProbeVideoReply> {
    return this.probes.probe(request);
  }

  @MessagePattern(VIDEO.PROBE_AUDIO)
  probeAudio(@Payload() request: ProbeAudioClipRequest): Promise<ProbeAudioClipReply> {
    return this.probes.probeAudio(request);
  }

  @MessagePattern(VIDEO.QUEUE)
  queue(@Payload() request: QueueVideoRequest): Promise<QueueVideoReply> {
    return this.jobs.enqueue(request);
  }

  @MessagePattern(VIDEO.RETRIEVE)
  retrieve(@Payload() request: RetrieveVideoRequest): Promise<RetrieveVideoReply> {
    return this.jobs.retrieve(request);
  }

  @MessagePattern(VIDEO.COMPLETE)
  complete(@Payload() request: VideoJobRef): Promise<CompleteVideoReply> {
    return this.jobs.complete(request);
  }

  @MessagePattern(VIDEO.DOWNLOAD)
  download(@Payload() request: DownloadVideoRequest): Promise<DownloadVideoReply> {
    return this.jobs.download(request);
  }
}
