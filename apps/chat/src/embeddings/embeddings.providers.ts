import { Inject, Injectable, OnApplicationShutdown, OnModuleInit, Provider } from '@nestjs/common';
import { LazyBlobStore } from '@svc/blob-store';
import { Catalog } from '@svc/catalog';
import { Logger } from '@svc/logging';
import { EmbeddingEngineRegistry } from '../engines/embeddings/embedding-engine-registry';
import { EMBEDDING_BLOBS } from './embedding-payloads';
import { EmbeddingsService } from './embeddings.service';

/** Loads the embedding engines before the service joins NATS and closes them (and Redis) at shutdown. */
@Injectable()
export class EmbeddingsLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly engines: EmbeddingEngineRegistry,
    @Inject(EMBEDDING_BLOBS) private readonly blobs: LazyBlobStore,
  ) {}

  onModuleInit(): Promise<void> {
    return this.engines.loadAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engines.closeAll();
    await this.blobs.close();
  }
}

export function createEmbeddingEngines(catalog: Catalog, modelsDir: string, logger: Logger): EmbeddingEngineRegistry {
  return new EmbeddingEngineRegistry(catalog, modelsDir, logger);
}

/** What the chat service's AppModule registers for `chat.cmd.embed.v2` (with EmbeddingsHandler). */
export function embeddingsProviders(engines: EmbeddingEngineRegistry, redisUrl: string): Provider[] {
  return [
    EmbeddingsService,
    EmbeddingsLifecycle,
    { provide: EmbeddingEngineRegistry, useValue: engines },
    { provide: EMBEDDING_BLOBS, useValue: new LazyBlobStore(redisUrl) },
  ];
}
