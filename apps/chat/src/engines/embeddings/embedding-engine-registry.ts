import path from 'node:path';
import { Catalog, EngineConfig, embeddingConstraintsOf, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { EmbeddingEngine } from './embedding-engine';
import { OpenAIEmbeddingsEngine } from './openai-embeddings.engine';
import { WordVectorsEmbeddingEngine } from './word-vectors-embedding.engine';

/** One engine per `embedding` model of the catalog, created and loaded at boot, closed at shutdown. */
export class EmbeddingEngineRegistry {
  private readonly engines = new Map<string, EmbeddingEngine>();
  private readonly failures = new Map<string, string>();

  constructor(
    catalog: Catalog,
    private readonly modelsDir: string,
    private readonly logger: Logger,
  ) {
    for (const model of catalog.ofType('embedding')) this.engines.set(model.id, this.create(model, model.engine));
  }

  async loadAll(): Promise<void> {
    await Promise.all(
      [...this.engines].map(async ([id, engine]) => {
        try {
          await engine.ready();
          this.logger.info({ model: id, kind: engine.kind }, 'embedding engine ready');
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          this.failures.set(id, reason);
          this.logger.error({ model: id, reason }, 'embedding engine failed to load');
        }
      }),
    );
  }

  get(model: ModelDefinition): EmbeddingEngine {
    const engine = this.engines.get(model.id);
    if (!engine) throw new DomainError(ErrorCode.ModelNotFound, `Model ${model.id} is not an embedding model.`);
    if (this.failures.has(model.id)) throw new DomainError(ErrorCode.ServiceUnavailable, `Model ${model.id} is not available on this server.`);
    return engine;
  }

  status(): string {
    return this.failures.size === 0 ? 'ok' : `failing: ${[...this.failures.keys()].join(', ')}`;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.engines.values()].map((e) => e.close().catch(() => undefined)));
  }

  private create(model: ModelDefinition, engine: EngineConfig): EmbeddingEngine {
    switch (engine.kind) {
      case 'embedded-word-vectors':
        return new WordVectorsEmbeddingEngine({ modelPath: path.resolve(this.modelsDir, engine.file), maxBatch: embeddingConstraintsOf(model).maxBatch });
      case 'openai-compatible':
        return new OpenAIEmbeddingsEngine({
          baseUrl: engine.baseUrl,
          model: engine.model,
          apiKey: engine.apiKeyEnv ? process.env[engine.apiKeyEnv] : undefined,
          timeoutMs: engine.timeoutMs,
          connections: engine.connections,
          forwardDimensions: embeddingConstraintsOf(model).minDimensions !== undefined,
        });
      case 'embedded-llama':
      case 'embedded-onnx-diffusion':
        throw new Error(`Model ${model.id} is an embedding model but its engine ${engine.kind} does not embed text.`);
      default:
        throw new Error(`Model ${model.id}: engine ${(engine as { kind: string }).kind} does not embed text.`);
    }
  }
}
