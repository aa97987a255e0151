import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Catalog } from '@svc/catalog';
import { AUDIO, ProbeAudioReply, ProbeAudioRequest, TranscribeReply, TranscribeRequest } from '@svc/contracts';
import { CATALOG } from '../tokens';
import { TranscriptionService } from './transcription.service';

@Controller()
export class TranscriptionHandler {
  constructor(
    private readonly transcription: TranscriptionService,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  @MessagePattern(AUDIO.PROBE)
  probe(@Payload() request: ProbeAudioRequest): Promise<ProbeAudioReply> {
    return this.transcription.probe(request, this.catalog.resolve(request.model, 'asr'));
  }

  @MessagePattern(AUDIO.TRANSCRIBE)
  transcribe(@Payload() request: TranscribeRequest): Promise<TranscribeReply> {
    return this.transcription.transcribe(request);
  }
}
