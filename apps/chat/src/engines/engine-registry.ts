import path from 'node:path';
import { Catalog, EngineConfig, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { TextEngine } from './engine';
import { EmbeddedLlamaEngine } from './embedded/embedded-llama.engine';
import { OpenAICompatibleEngine } from './upstream/openai-compatible.engine';

export interface EngineRegistryOptions {
  modelsDir: string;
  threads: number;
}

/** One engine per text model of the catalog, created and loaded at boot, closed at shutdown. */
export class EngineRegistry {
  private readonly engines = new Map<string, TextEngine>();
  private readonly failures = new Map<string, string>();

  constructor(
    private readonly catalog: Catalog,
    private readonly options: EngineRegistryOptions,
    private readonly logger: Logger,
  ) {
    for (const model of catalog.ofType('text')) this.engines.set(model.id, this.create(model.id, model.engine));
  }

  async loadAll(): Promise<void> {
    await Promise.all(
      [...this.engines].map(async ([id, engine]) => {
        const started = Date.now();
        try {
          await engine.ready();
          this.logger.info({ model: id, kind: engine.kind, ms: Date.now() - started }, 'engine ready');
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          this.failures.set(id, reason);
          this.logger.error({ model: id, reason }, 'engine failed to load');
        }
      }),
    );
  }

  get(model: ModelDefinition): TextEngine {
    const engine = this.engines.get(model.id);
    if (!engine) throw new DomainError(ErrorCode.ModelNotFound, `Model ${model.id} is not a text model.`);
    if (this.failures.has(model.id)) throw new DomainError(ErrorCode.ServiceUnavailable, `Model ${model.id} is not available on this server.`);
    return engine;
  }

  status(): string {
    return this.failures.size === 0 ? 'ok' : `failing: ${[...this.failures.keys()].join(', ')}`;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.engines.values()].map((e) => e.close().catch(() => undefined)));
  }

  private create(modelId: string, engine: EngineConfig): TextEngine {
    switch (engine.kind) {
      case 'embedded-onnx-diffusion':
      case 'embedded-sharp-resample':
      case 'embedded-word-vectors':
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
          logger: this.logger.child({ engine: engine.kind, model: modelId }),
        });
    }
  }
}
