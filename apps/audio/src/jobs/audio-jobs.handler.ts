import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AUDIO, AudioJobRef, CompleteAudioReply, QueueAudioReply, QueueAudioRequest, RetrieveAudioReply, RetrieveAudioRequest } from '@svc/contracts';
import { AudioJobsService } from './audio-jobs.service';

@Controller()
export class AudioJobsHandler {
  constructor(private readonly jobs: AudioJobsService) {}

  @MessagePattern(AUDIO.QUEUE)
  queue(@Payload() request: QueueAudioRequest): Promise<QueueAudioReply> {
    return this.jobs.enqueue(request);
  }

  @MessagePattern(AUDIO.RETRIEVE)
  retrieve(@Payload() request: RetrieveAudioRequest): Promise<RetrieveAudioReply> {
    return this.jobs.retrieve(request);
  }

  @MessagePattern(AUDIO.COMPLETE)
  complete(@Payload() request: AudioJobRef): Promise<CompleteAudioReply> {
    return this.jobs.complete(request);
  }
}
