import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AUDIO, CloneVoiceReply, CloneVoiceRequest } from '@svc/contracts';
import { VoicesService } from './voices.service';

@Controller()
export class VoicesHandler {
  constructor(private readonly voices: VoicesService) {}

  @MessagePattern(AUDIO.CLONE_VOICE)
  clone(@Payload() request: CloneVoiceRequest): Promise<CloneVoiceReply> {
    return this.voices.clone(request);
  }
}
