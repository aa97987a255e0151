import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { audioBlobsProvider } from './audio-blobs';
import { AudioJobsController } from './audio-jobs.controller';
import { AudioStreamer } from './audio-streamer';
import { AudioController } from './audio.controller';
import { VoicesController } from './voices.controller';

/** The audio endpoints (docs/audio.md): the gateway validates, admits and relays to the audio service. */
@Module({
  imports: [AdmissionModule],
  controllers: [AudioController, AudioJobsController, VoicesController],
  providers: [AudioStreamer, audioBlobsProvider],
})
export class AudioModule {}
