import path from 'node:path';
import { Catalog, EngineConfig } from '@svc/catalog';
import { Logger } from '@svc/logging';
import { TextEngine } from './engine';
import { EmbeddedLlamaEngine } from './embedded/embedded-llama.engine';
import { ModelEngineRegistry } from './model-engine-registry';
import { OpenAICompatibleEngine } from './upstream/openai-compatible.engine';

export interface EngineRegistryOptions {
  modelsDir: string;
  threads: number;
}

/** One engine per text model of the catalog, created and loaded at boot, closed at shutdown. */
export class EngineRegistry extends ModelEngineRegistry<TextEngine> {
  constructor(
    private readonly catalog: Catalog,
    private readonly options: EngineRegistryOptions,
    logger: Logger,
  ) {
    super({ engine: 'engine', model: 'a text model' }, logger);
    for (const model of catalog.ofType('text')) this.engines.set(model.id, this.create(model.id, model.engine));
  }

  private create(modelId: string, engine: EngineConfig): TextEngine {
    switch (engine.kind) {
      case 'embedded-onnx-diffusion':
      case 'embedded-sharp-resample':
      case 'embedded-sharp-matte':
      case 'embedded-ffmpeg-video':
      case 'embedded-diffusion-video':
      case 'embedded-word-vectors':
      case 'embedded-image-safety':
      case 'embedded-flite':
      case 'embedded-pocketsphinx':
      case 'sdapi':
        throw new Error(`Model ${modelId} is a text model but its engine ${engine.kind} does not generate text.`);
      case 'embedded-llama':
        return new EmbeddedLlamaEngine({
          modelPath: path.resolve(this.options.modelsDir, engine.file),
          contextSize: engine.contextSize,
          maxParallel: engine.maxParallel,
          maxQueue: engine.maxQueue,
          threads: this.options.threads || undefined,
          logger: this.logger.child({ engine: engine.kind, model: modelId }),
        });
      case 'openai-compatible':
        return new OpenAICompatibleEngine({
          baseUrl: engine.baseUrl,
          model: engine.model,
          apiKey: engine.apiKeyEnv ? process.env[engine.apiKeyEnv] : undefined,
          endpoints: engine.endpoints.map((e) => ({ baseUrl: e.baseUrl, model: e.model, apiKey: e.apiKeyEnv ? process.env[e.apiKeyEnv] : undefined })),
          timeoutMs: engine.timeoutMs,
          connections: engine.connections,
          retries: engine.retries,
          healthCheckIntervalMs: engine.healthCheckIntervalMs,
          circuitBreaker: engine.circuitBreaker,
          tokenize: engine.tokenize,
          logger: this.logger.child({ engine: engine.kind, model: modelId }),
        });
    }
  }
}
