import path from 'node:path';
import { Catalog, EngineConfig, embeddingConstraintsOf, ModelDefinition } from '@svc/catalog';
import { Logger } from '@svc/logging';
import { ModelEngineRegistry } from '../model-engine-registry';
import { EmbeddingEngine } from './embedding-engine';
import { OpenAIEmbeddingsEngine } from './openai-embeddings.engine';
import { WordVectorsEmbeddingEngine } from './word-vectors-embedding.engine';

/** One engine per `embedding` model of the catalog, created and loaded at boot, closed at shutdown. */
export class EmbeddingEngineRegistry extends ModelEngineRegistry<EmbeddingEngine> {
  constructor(
    catalog: Catalog,
    private readonly modelsDir: string,
    logger: Logger,
  ) {
    super({ engine: 'embedding engine', model: 'an embedding model' }, logger);
    for (const model of catalog.ofType('embedding')) this.engines.set(model.id, this.create(model, model.engine));
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
