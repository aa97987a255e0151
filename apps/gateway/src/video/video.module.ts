import { Module } from '@nestjs/common';
import Redis from 'ioredis';
import { BlobStore } from '@svc/blob-store';
import { outboundFetcherFromEnv } from '@svc/outbound';
import { AdmissionModule } from '../admission/admission.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { REDIS } from '../redis/redis.module';
import { VideoDownloadController } from './video-download.controller';
import { VideoDownloadSigner } from './video-download-url';
import { loadVideoGatewayConfig, VIDEO_GATEWAY_CONFIG, VideoGatewayConfig } from './video-gateway.config';
import { VIDEO_BLOBS, VIDEO_URL_FETCHER, VideoJobsGateway } from './video-jobs.service';
import { VideoRetrieveLimit } from './video-retrieve-limit';
import { VideoController } from './video.controller';
import { VideoPipeline } from './video.pipeline';

/** The video endpoints (docs/video.md): the gateway validates, prices, admits and relays to the media service. */
@Module({
  imports: [AdmissionModule, RateLimitModule],
  controllers: [VideoController, VideoDownloadController],
  providers: [
    VideoPipeline,
    VideoJobsGateway,
    VideoRetrieveLimit,
    { provide: VIDEO_GATEWAY_CONFIG, useFactory: () => loadVideoGatewayConfig() },
    { provide: VideoDownloadSigner, inject: [VIDEO_GATEWAY_CONFIG], useFactory: (c: VideoGatewayConfig) => new VideoDownloadSigner(c.downloadSecret) },
    { provide: VIDEO_BLOBS, inject: [REDIS], useFactory: (redis: Redis) => new BlobStore(redis) },
    { provide: VIDEO_URL_FETCHER, useFactory: () => outboundFetcherFromEnv() },
  ],
})
export class VideoModule {}
