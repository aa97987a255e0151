import path from 'node:path';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { timeEngineRequest, watchEngine } from '@svc/messaging';
import { traceEngine } from '@svc/tracing';
import { OnnxDiffusionEngine } from '../engines/diffusion/onnx-diffusion.engine';
import { SdapiImageEngine } from '../engines/sdapi/sdapi-image.engine';
import { OpenAiImageEngine, UpstreamImage, UpstreamImageRequest } from '../engines/upstream/openai-image.engine';

/** What the media service needs of an image engine: pixels at the engine's own size (post-processing resizes). */
export interface ImageEngine {
  generate(request: UpstreamImageRequest): Promise<UpstreamImage>;
  /** Engines that make several images in one call (sdapi `batch_size`): image i has seed `seed + i`. */
  generateBatch?(request: UpstreamImageRequest, count: number): Promise<UpstreamImage[]>;
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The embedded model works at its native size; the requested size is applied by post-processing.
 * Its slots, queue and time per request are metrics (docs/operations.md, "Metrics").
 */
class EmbeddedDiffusion implements ImageEngine {
  constructor(
    private readonly engine: OnnxDiffusionEngine,
    private readonly modelId: string,
  ) {
    watchEngine(modelId, () => engine.stats);
  }
  generate({ width: _w, height: _h, ...rest }: UpstreamImageRequest): Promise<UpstreamImage> {
    const done = timeEngineRequest(this.modelId);
    return traceEngine(this.modelId, 'embedded', () => this.engine.generate(rest)).finally(done);
  }
  ready(): Promise<void> {
    return this.engine.ready();
  }
  close(): Promise<void> {
    return this.engine.close();
  }
}

export interface ImageEngineRegistryOptions {
  modelsDir: string;
  threads: number;
}

/** The media service's model types: generation, prompt-guided editing, upscaling. */
export const MEDIA_MODEL_TYPES = ['image', 'inpaint', 'upscale'] as const;

/**
 * One engine per image or edit model of the catalog (embedded ONNX diffusion, or an
 * OpenAI-compatible image server, or an AUTOMATIC1111/Forge `sdapi` server), loaded at boot and closed at shutdown. Upscale models with the classical `embedded-sharp-resample` engine need no engine
 * object (sharp does the work); engines this service cannot run are reported, not fatal.
 */
export class ImageEngineRegistry {
  private readonly engines = new Map<string, ImageEngine>();
  private readonly failures = new Map<string, string>();

  constructor(
    private readonly catalog: Catalog,
    private readonly options: ImageEngineRegistryOptions,
    private readonly logger: Logger,
  ) {
    for (const type of MEDIA_MODEL_TYPES) {
      for (const model of catalog.ofType(type)) {
        const engine = model.engine;
        if (engine.kind === 'embedded-onnx-diffusion' && model.type !== 'upscale') {
          const onnx = new OnnxDiffusionEngine({
            modelPath: path.resolve(options.modelsDir, engine.file),
            maxParallel: engine.maxParallel,
            maxQueue: engine.maxQueue,
            threads: options.threads || undefined,
          });
          this.engines.set(model.id, new EmbeddedDiffusion(onnx, model.id));
        } else if (engine.kind === 'openai-compatible' && model.type !== 'upscale') {
          const apiKey = engine.apiKeyEnv ? process.env[engine.apiKeyEnv] : undefined;
          this.engines.set(
            model.id,
            new OpenAiImageEngine({
              baseUrl: engine.baseUrl,
              model: engine.model,
              apiKey,
              timeoutMs: engine.timeoutMs,
              maxParallel: Math.min(engine.connections, 16),
            }),
          );
        } else if (engine.kind === 'sdapi' && model.type !== 'upscale') {
          const auth = engine.authEnv ? process.env[engine.authEnv] : undefined;
          if (engine.authEnv && !auth) this.failures.set(model.id, `environment variable ${engine.authEnv} (engine.authEnv) is not set`);
          else
            this.engines.set(
              model.id,
              new SdapiImageEngine({
                baseUrl: engine.baseUrl,
                checkpoint: engine.checkpoint,
                sampler: engine.sampler,
                auth,
                timeoutMs: engine.timeoutMs,
                maxParallel: engine.maxParallel,
                maxQueue: engine.maxQueue,
                denoisingStrength: engine.denoisingStrength,
              }),
            );
        } else if (!isClassicalUpscaler(model)) {
          this.failures.set(model.id, `engine ${engine.kind} is not supported by the media service yet`);
        }
      }
    }
  }

  async loadAll(): Promise<void> {
    for (const [id, reason] of this.failures) this.logger.warn({ model: id, reason }, 'image model not served');
    await Promise.all(
      [...this.engines].map(async ([id, engine]) => {
        const started = Date.now();
        try {
          await engine.ready();
          this.logger.info({ model: id, ms: Date.now() - started }, 'engine ready');
        } catch (err) {
          const reason = errorMessage(err);
          this.failures.set(id, reason);
          this.logger.error({ model: id, reason }, 'engine failed to load');
        }
      }),
    );
  }

  /** The model of one of `types`, or 404 naming what exists. */
  model(id: string, types: ReadonlyArray<ModelDefinition['type']>): ModelDefinition {
    const model = this.catalog.get(id);
    if (!model || !types.includes(model.type))
      throw new DomainError(ErrorCode.ModelNotFound, `Model "${id}" does not exist or is not a ${types.join(' or ')} model.`);
    return model;
  }

  engine(model: ModelDefinition): ImageEngine {
    const failure = this.failures.get(model.id);
    if (failure !== undefined) throw new DomainError(ErrorCode.ServiceUnavailable, `Model ${model.id} is not available on this server.`);
    const engine = this.engines.get(model.id);
    if (!engine) throw new DomainError(ErrorCode.ModelNotFound, `Model ${model.id} has no image engine.`);
    return engine;
  }

  status(): string {
    return this.failures.size === 0 ? 'ok' : `failing: ${[...this.failures.keys()].join(', ')}`;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.engines.values()].map((e) => e.close().catch(() => undefined)));
  }
}

export function isClassicalUpscaler(model: ModelDefinition): boolean {
  return model.type === 'upscale' && (model.engine.kind as string) === 'embedded-sharp-resample';
}
