import path from 'node:path';
import { Inject, Injectable, OnApplicationShutdown, Provider } from '@nestjs/common';
import { ModelDefinition } from '@svc/catalog';
import { watchEngine } from '@svc/messaging';
import { MEDIA_CONFIG, MediaConfig } from '../../config';
import { DiffusionVideoEngine } from './diffusion/diffusion-video.engine';
import { OpenAIVideosEngine } from './upstream/openai-videos.engine';
import { VideoEngine } from './video-engine';

/** The media config a generation engine factory reads. */
export type GenerationEngineConfig = Pick<MediaConfig, 'SVC_MODELS_DIR' | 'IMAGE_THREADS'>;

/**
 * Builds the demo text/image-to-video engine of a catalog model with engine kind
 * `embedded-diffusion-video` (docs/video-engines.md). The model loads on its first job; sessions
 * are released at shutdown. Its running and queued clips are the `svc_engine_*` gauges.
 */
@Injectable()
export class DiffusionVideoEngineFactory implements OnApplicationShutdown {
  readonly kind = 'embedded-diffusion-video';
  private readonly created: Array<{ engine: DiffusionVideoEngine; unwatch: () => void }> = [];

  constructor(@Inject(MEDIA_CONFIG) private readonly config: GenerationEngineConfig) {}

  create(model: ModelDefinition): VideoEngine {
    const engine = model.engine;
    if (engine.kind !== 'embedded-diffusion-video') throw new Error(`model ${model.id}: engine ${engine.kind} is not ${this.kind}`);
    const created = new DiffusionVideoEngine({
      modelPath: path.resolve(this.config.SVC_MODELS_DIR, engine.file),
      maxParallel: engine.maxParallel,
      maxQueue: engine.maxQueue,
      threads: this.config.IMAGE_THREADS || undefined,
    });
    // Its slots and queue are metrics, as for the image engines (docs/operations.md, "Metrics").
    this.created.push({ engine: created, unwatch: watchEngine(model.id, () => created.stats) });
    return created;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      this.created.map(({ engine, unwatch }) => {
        unwatch();
        return engine.close().catch(() => undefined);
      }),
    );
  }
}

/**
 * Builds the adapter of a `type: video` catalog model with engine kind `openai-compatible`: a
 * server that speaks the OpenAI videos API. The engine's `timeoutMs` bounds the whole job.
 */
@Injectable()
export class OpenAIVideosEngineFactory {
  readonly kind = 'openai-compatible';

  create(model: ModelDefinition): VideoEngine {
    const engine = model.engine;
    if (engine.kind !== 'openai-compatible') throw new Error(`model ${model.id}: engine ${engine.kind} is not ${this.kind}`);
    if (engine.apiKeyEnv && !process.env[engine.apiKeyEnv])
      throw new Error(`model ${model.id}: environment variable ${engine.apiKeyEnv} (engine.apiKeyEnv) is not set`);
    return new OpenAIVideosEngine({
      baseUrl: engine.baseUrl,
      model: engine.model,
      apiKey: engine.apiKeyEnv ? process.env[engine.apiKeyEnv] : undefined,
      timeoutMs: engine.timeoutMs,
      maxParallel: Math.min(engine.connections, 16),
    });
  }
}

/** Add to the media module's providers; the video engine registry injects both factories. */
export const videoGenerationProviders: Provider[] = [DiffusionVideoEngineFactory, OpenAIVideosEngineFactory];
