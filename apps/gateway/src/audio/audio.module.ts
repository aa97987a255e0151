import { Module } from '@nestjs/common';
import { outboundFetcherFromEnv } from '@svc/outbound';
import { AdmissionModule } from '../admission/admission.module';
import { audioBlobsProvider } from './audio-blobs';
import { AudioJobsController } from './audio-jobs.controller';
import { AudioStreamer } from './audio-streamer';
import { AudioController } from './audio.controller';
import { TranscriptionRunner } from './transcription-runner';
import { MEDIA_URL_FETCHER, VideoTranscriptionController } from './video-transcription.controller';
import { VoicesController } from './voices.controller';

/** The audio endpoints and video transcription (docs/audio.md): the gateway validates, admits and relays to the audio service. */
@Module({
  imports: [AdmissionModule],
  controllers: [AudioController, AudioJobsController, VoicesController, VideoTranscriptionController],
  providers: [AudioStreamer, audioBlobsProvider, TranscriptionRunner, { provide: MEDIA_URL_FETCHER, useFactory: () => outboundFetcherFromEnv() }],
})
export class AudioModule {}
