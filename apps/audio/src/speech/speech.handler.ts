import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AUDIO, SpeechReply, SpeechRequest, StreamOpenReply, StreamSpeechRequest } from '@svc/contracts';
import { SpeechService } from './speech.service';

@Controller()
export class SpeechHandler {
  constructor(private readonly speech: SpeechService) {}

  @MessagePattern(AUDIO.SPEECH)
  speak(@Payload() request: SpeechRequest): Promise<SpeechReply> {
    return this.speech.speak(request);
  }

  @MessagePattern(AUDIO.SPEECH_STREAM)
  stream(@Payload() request: StreamSpeechRequest): StreamOpenReply {
    return this.speech.openStream(request);
  }
}
