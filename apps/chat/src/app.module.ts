import { DynamicModule, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { loadCatalog } from '@svc/catalog';
import { HEALTH_CHECKS, MessagingModule, SERVICE_LOGGER } from '@svc/messaging';
import { BillingSettler, settlementJournalProvider, settleWindowProvider } from '@svc/billing-client';
import { createLogger } from '@svc/logging';
import { CharactersModule } from './characters/characters.module';
import { ChatHandler } from './chat/chat.handler';
import { ChatService } from './chat/chat.service';
import { SvcParametersApplier } from './chat/prompt/svc-parameters.applier';
import { ChatAugmentation } from './chat/augmentation/chat-augmentation';
import { CATALOG, CHAT_LOGGER } from './chat/tokens';
import { CHAT_CONFIG, ChatConfig } from './config';
import { EngineRegistry } from './engines/engine-registry';
import { AugmentHandler } from './augment/augment.handler';
import { augmentProviders } from './augment/augment.providers';
import { EmbeddingsHandler } from './embeddings/embeddings.handler';
import { createEmbeddingEngines, embeddingsProviders } from './embeddings/embeddings.providers';

@Module({})
export class AppModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(EngineRegistry) private readonly engines: EngineRegistry) {}

  static forConfig(config: ChatConfig): DynamicModule {
    const logger = createLogger('chat', config.LOG_LEVEL);
    const catalog = loadCatalog(config.SVC_CATALOG_PATH);
    const engines = new EngineRegistry(catalog, { modelsDir: config.SVC_MODELS_DIR, threads: config.LLAMA_THREADS }, logger);
    const embeddingEngines = createEmbeddingEngines(catalog, config.SVC_MODELS_DIR, logger);
    return {
      module: AppModule,
      imports: [
        CharactersModule.forConfig(config, logger, catalog),
        MessagingModule.forRoot({
          name: 'chat',
          natsUrl: config.NATS_URL,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          health: {
            service: 'chat',
            checks: { provide: HEALTH_CHECKS, useValue: { engines: async () => engines.status(), embeddingEngines: async () => embeddingEngines.status() } },
          },
        }),
      ],
      controllers: [ChatHandler, EmbeddingsHandler, AugmentHandler],
      providers: [
        ChatService,
        SvcParametersApplier,
        ChatAugmentation,
        ...embeddingsProviders(embeddingEngines, config.REDIS_URL),
        ...augmentProviders(config),
        BillingSettler,
        settlementJournalProvider(config.SETTLEMENT_JOURNAL_DIR, 'chat', logger),
        settleWindowProvider(config.SETTLE_WINDOW_MS),
        { provide: EngineRegistry, useValue: engines },
        { provide: CATALOG, useValue: catalog },
        { provide: CHAT_CONFIG, useValue: config },
        { provide: CHAT_LOGGER, useValue: logger },
        { provide: SERVICE_LOGGER, useValue: logger },
      ],
    };
  }

  /** Engines load before the service joins NATS, so it never takes requests it cannot serve. */
  async onModuleInit(): Promise<void> {
    await this.engines.loadAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engines.closeAll();
  }
}
