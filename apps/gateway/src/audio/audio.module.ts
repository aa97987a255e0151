import { Module } from '@nestjs/common';
import { outboundFetcherFromEnv } from '@svc/outbound';
import { AdmissionModule } from '../admission/admission.module';
import { audioBlobsProvider } from './audio-blobs';
import { AudioJobsController } from './audio-jobs.controller';
import { AudioJobsPipeline } from './audio-jobs.pipeline';
import { AudioStreamer } from './audio-streamer';
import { AudioController } from './audio.controller';
import { SpeechPipeline } from './speech.pipeline';
import { MEDIA_URL_FETCHER, TranscriptionPipeline } from './transcription.pipeline';
import { VideoTranscriptionController } from './video-transcription.controller';
import { VoicesController } from './voices.controller';
import { VoicesPipeline } from './voices.pipeline';

/** The audio endpoints and video transcription (docs/audio.md): the gateway validates, admits and relays to the audio service. */
@Module({
  imports: [AdmissionModule],
  controllers: [AudioController, AudioJobsController, VoicesController, VideoTranscriptionController],
  providers: [
    SpeechPipeline,
    TranscriptionPipeline,
    VoicesPipeline,
    AudioJobsPipeline,
    AudioStreamer,
    audioBlobsProvider,
    { provide: MEDIA_URL_FETCHER, useFactory: () => outboundFetcherFromEnv() },
  ],
})
export class AudioModule {}
