import { DynamicModule, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { BlobStore } from '@svc/blob-store';
import { loadCatalog } from '@svc/catalog';
import { createLogger, Logger } from '@svc/logging';
import { HEALTH_CHECKS, MessagingModule, SERVICE_LOGGER } from '@svc/messaging';
import { BillingSettler, settlementJournalProvider, settleWindowProvider } from '@svc/billing-client';
import { MEDIA_CONFIG, MediaConfig } from './config';
import { ImageEngineRegistry } from './images/image-engine.registry';
import { ImageHandler } from './images/image.handler';
import { ImageService } from './images/image.service';
import { loadNsfwjsClassifier, NsfwClassifier } from './images/nsfw-classifier';
import { SafeMode } from './images/safe-mode';
import { BLOB_STORE, CATALOG, MEDIA_LOGGER } from './images/tokens';
import { ModerationHandler } from './moderation/moderation.handler';
import { ModerationService } from './moderation/moderation.service';
import { DiffusionVideoEngineFactory, OpenAIVideosEngineFactory, videoGenerationProviders } from './video/engines/generation.providers';
import { VIDEO_CONTROLLERS, videoImports, videoProviders } from './video/video.wiring';
import { errorMessage } from '@svc/errors';

/** The media service: image generation, editing and upscaling, moderation, and video jobs, over NATS (queue group 'media'). */
@Module({})
export class AppModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(ImageEngineRegistry) private readonly engines: ImageEngineRegistry,
    @Inject(SafeMode) private readonly safeMode: SafeMode,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  static forConfig(config: MediaConfig): DynamicModule {
    const logger = createLogger('media', config.LOG_LEVEL);
    const catalog = loadCatalog(config.SVC_CATALOG_PATH);
    const engines = new ImageEngineRegistry(catalog, { modelsDir: config.SVC_MODELS_DIR, threads: config.IMAGE_THREADS }, logger);
    const safeMode = new SafeMode(() => loadClassifier(config, logger), config.SAFE_MODE_NSFW_THRESHOLD, logger);
    const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, connectTimeout: 5_000 });
    redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis (blob store) unavailable'));
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          name: 'media',
          natsUrl: config.NATS_URL,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          health: {
            service: 'media',
            checks: {
              provide: HEALTH_CHECKS,
              useValue: { engines: async () => engines.status(), safeMode: async () => (safeMode.available ? 'ok' : 'classifier not loaded: safe mode blurs') },
            },
          },
        }),
        ...videoImports(config, logger),
      ],
      controllers: [ImageHandler, ModerationHandler, ...VIDEO_CONTROLLERS],
      providers: [
        ...videoProviders(config, catalog, logger, {
          providers: videoGenerationProviders,
          factories: [DiffusionVideoEngineFactory, OpenAIVideosEngineFactory],
        }),
        ImageService,
        ModerationService,
        BillingSettler,
        settlementJournalProvider(config.SETTLEMENT_JOURNAL_DIR, 'media', logger),
        settleWindowProvider(config.SETTLE_WINDOW_MS),
        { provide: ImageEngineRegistry, useValue: engines },
        { provide: SafeMode, useValue: safeMode },
        { provide: BLOB_STORE, useValue: new BlobStore(redis) },
        { provide: CATALOG, useValue: catalog },
        { provide: MEDIA_CONFIG, useValue: config },
        { provide: MEDIA_LOGGER, useValue: logger },
        { provide: SERVICE_LOGGER, useValue: logger },
      ],
    };
  }

  /**
   * Engines and the safe-mode classifier load before the service subscribes on NATS, so it never
   * takes requests it cannot serve. The classifier's WebAssembly compile holds the event loop for
   * a while; by now the NATS client connection is established (providers resolve first) and the
   * subscriptions are made after this hook.
   */
  async onModuleInit(): Promise<void> {
    await this.engines.loadAll();
    await this.safeMode.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.engines.closeAll(), this.safeMode.close(), this.blobs.close()]);
  }
}

async function loadClassifier(config: MediaConfig, logger: Logger): Promise<NsfwClassifier | null> {
  if (config.SAFE_MODE_CLASSIFIER === 'off') {
    logger.warn({}, 'safe-mode classifier off: safe mode blurs every output');
    return null;
  }
  const started = Date.now();
  try {
    const classifier = await loadNsfwjsClassifier();
    logger.info({ ms: Date.now() - started }, 'safe-mode classifier ready (nsfwjs MobileNetV2, tfjs wasm)');
    return classifier;
  } catch (err) {
    logger.error({ err: errorMessage(err) }, 'safe-mode classifier failed to load: safe mode blurs every output');
    return null;
  }
}
