import { DynamicModule, Provider, Type } from '@nestjs/common';
import { Catalog } from '@svc/catalog';
import { JobsModule } from '@svc/jobs';
import { Logger } from '@svc/logging';
import { VIDEO_ENGINE_FACTORIES, VideoEngineFactory, VideoEngineRegistry } from './engines/video-engine.registry';
import { VIDEO_QUEUE_NAME } from './jobs/video-job.types';
import { VideoJobsHandler } from './jobs/video-jobs.handler';
import { VideoJobsService } from './jobs/video-jobs.service';
import { VideoProbeService } from './jobs/video-probe.service';
import { VIDEO_CONFIG, VideoConfig } from './video.config';

/**
 * Video jobs in the media service (docs/video.md), spread into its app module (they share its
 * blob store, catalog, logger and BillingSettler): the BullMQ queue, the engine registry
 * (ffmpeg enhancement; generation engines through `factories`), the worker and the NATS handlers.
 */
export const videoImports = (config: VideoConfig, logger: Logger): DynamicModule[] => [
  JobsModule.forRoot({ redisUrl: config.REDIS_URL, logger, label: 'video job queue' }),
  JobsModule.registerQueue(VIDEO_QUEUE_NAME, config.VIDEO_QUEUE_PREFIX),
];

export const VIDEO_CONTROLLERS: Type[] = [VideoJobsHandler];

/** Engines other than ffmpeg's: their providers, and the factories among them (by engine kind). */
export interface VideoEngineSet {
  providers: Provider[];
  factories: Type<VideoEngineFactory>[];
}

export function videoProviders(config: VideoConfig, catalog: Catalog, logger: Logger, engines: VideoEngineSet = { providers: [], factories: [] }): Provider[] {
  return [
    VideoJobsService,
    VideoProbeService,
    ...engines.providers,
    { provide: VIDEO_ENGINE_FACTORIES, inject: engines.factories, useFactory: (...built: VideoEngineFactory[]) => built },
    {
      provide: VideoEngineRegistry,
      inject: [VIDEO_ENGINE_FACTORIES],
      useFactory: (built: VideoEngineFactory[]) => new VideoEngineRegistry(catalog, built, logger),
    },
    { provide: VIDEO_CONFIG, useValue: config },
  ];
}
