import { DynamicModule, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { loadCatalog } from '@svc/catalog';
import { JobsModule } from '@svc/jobs';
import { createLogger } from '@svc/logging';
import { HEALTH_CHECKS, MessagingModule, SERVICE_LOGGER } from '@svc/messaging';
import { BillingSettler, settlementJournalProvider, settleWindowProvider } from '@svc/billing-client';
import { AudioPayloads } from './audio-payloads';
import { AUDIO_CONFIG, AudioConfig } from './config';
import { AudioEngineRegistry } from './engines/engine-registry';
import { setProcessConcurrency } from './engines/process-slots';
import { AUDIO_QUEUE_NAME } from './jobs/audio-job.types';
import { AudioJobsHandler } from './jobs/audio-jobs.handler';
import { AudioJobsService } from './jobs/audio-jobs.service';
import { SpeechHandler } from './speech/speech.handler';
import { SpeechService } from './speech/speech.service';
import { AUDIO_LOGGER, BLOB_STORE, CATALOG } from './tokens';
import { TranscriptionHandler } from './transcription/transcription.handler';
import { TranscriptionService } from './transcription/transcription.service';
import { VoicesHandler } from './voices/voices.handler';
import { VoicesService } from './voices/voices.service';

/** Speech (Flite, upstream), transcription (PocketSphinx, upstream), voice cloning (upstream) and asynchronous audio jobs. */
@Module({})
export class AppModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(AudioEngineRegistry) private readonly engines: AudioEngineRegistry,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  static forConfig(config: AudioConfig): DynamicModule {
    const logger = createLogger('audio', config.LOG_LEVEL);
    setProcessConcurrency(config.AUDIO_PROCESS_CONCURRENCY);
    const catalog = loadCatalog(config.SVC_CATALOG_PATH);
    const engines = new AudioEngineRegistry(catalog, { requestTimeoutMs: config.AUDIO_REQUEST_TIMEOUT_MS }, logger);
    const blobs = BlobStore.connect(config.REDIS_URL);
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          name: 'audio',
          natsUrl: config.NATS_URL,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          health: { service: 'audio', checks: { provide: HEALTH_CHECKS, useValue: { engines: async () => engines.status() } } },
        }),
        JobsModule.forRoot({ redisUrl: config.REDIS_URL, logger, label: 'audio job queue' }),
        JobsModule.registerQueue(AUDIO_QUEUE_NAME, config.AUDIO_QUEUE_PREFIX),
      ],
      controllers: [SpeechHandler, TranscriptionHandler, AudioJobsHandler, VoicesHandler],
      providers: [
        SpeechService,
        TranscriptionService,
        VoicesService,
        AudioJobsService,
        AudioPayloads,
        BillingSettler,
        settlementJournalProvider(config.SETTLEMENT_JOURNAL_DIR, 'audio', logger),
        settleWindowProvider(config.SETTLE_WINDOW_MS),
        { provide: AudioEngineRegistry, useValue: engines },
        { provide: BLOB_STORE, useValue: blobs },
        { provide: CATALOG, useValue: catalog },
        { provide: AUDIO_CONFIG, useValue: config },
        { provide: AUDIO_LOGGER, useValue: logger },
        { provide: SERVICE_LOGGER, useValue: logger },
      ],
    };
  }

  /** Engines start before the service joins NATS; a failing one is reported and its model answers 503. */
  async onModuleInit(): Promise<void> {
    await this.engines.loadAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engines.closeAll();
    await this.blobs.close();
  }
}
