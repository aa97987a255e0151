import { Catalog, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { FFMPEG_VIDEO_KIND, FfmpegEnhanceEngine } from './ffmpeg/ffmpeg-enhance.engine';
import { VideoEngine } from './video-engine';

/** Builds the engine of a catalog video model whose `engine.kind` is `kind` (generation engines: generation.providers.ts). */
export interface VideoEngineFactory {
  readonly kind: string;
  create(model: ModelDefinition): VideoEngine;
}

export const VIDEO_ENGINE_FACTORIES = Symbol('VIDEO_ENGINE_FACTORIES');

const ffmpegFactory: VideoEngineFactory = { kind: FFMPEG_VIDEO_KIND, create: () => new FfmpegEnhanceEngine() };

/**
 * One engine per `video` model of the catalog, by its engine kind. A model whose kind has no
 * factory, or whose engine failed to build, is reported (health, logs) and answers 503; the service
 * still boots.
 */
export class VideoEngineRegistry {
  private readonly engines = new Map<string, VideoEngine>();
  private readonly unavailable = new Map<string, string>();

  constructor(catalog: Catalog, factories: readonly VideoEngineFactory[], logger: Logger) {
    const byKind = new Map([ffmpegFactory, ...factories].map((f) => [f.kind, f]));
    for (const model of catalog.models.filter((m) => m.type === 'video')) {
      const factory = byKind.get(model.engine.kind);
      if (!factory) {
        this.unavailable.set(model.id, `engine kind ${model.engine.kind} is not available in this build`);
        logger.warn({ model: model.id, kind: model.engine.kind }, 'video model has no engine in this build: it answers 503');
        continue;
      }
      try {
        this.engines.set(model.id, factory.create(model));
      } catch (err) {
        const reason = errorMessage(err);
        this.unavailable.set(model.id, 'the engine failed to start (see the log)');
        logger.error({ model: model.id, err: reason }, 'video engine failed to start: the model answers 503');
      }
    }
  }

  engineFor(modelId: string): VideoEngine {
    const engine = this.engines.get(modelId);
    if (engine) return engine;
    // Why is in the operator's log (a missing key variable, an engine kind this build lacks): callers see no configuration.
    throw new DomainError(ErrorCode.ServiceUnavailable, `Video model ${modelId} is not available on this server.`);
  }

  /** For /healthz: `ok` or why not, per video model. */
  status(): Record<string, string> {
    return Object.fromEntries([...[...this.engines.keys()].map((id) => [id, 'ok']), ...this.unavailable.entries()]);
  }
}
