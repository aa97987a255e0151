import * as os from 'node:os';
import { DiffusionModelConfig, diffusionConfigPath, loadDiffusionModelConfig } from './diffusion-model-config';
import { DenoiserSession, DenoiserSessionFactory, onnxRuntimeSessionFactory } from './onnx-session';
import { WordTokenizer } from './word-tokenizer';

export interface DiffusionModelSource {
  modelPath: string;
  /** Sidecar JSON; default: the model path with `.json`. */
  configPath?: string;
  /** onnxruntime intra-op threads; default all cores but one. */
  threads?: number;
  sessionFactory?: DenoiserSessionFactory;
}

export interface LoadedDiffusionModel {
  config: DiffusionModelConfig;
  session: DenoiserSession;
  tokenizer: WordTokenizer;
}

/**
 * An svc-diffusion-v1 denoiser with its sidecar, loaded on the first `ready()` (a failed load is
 * tried again next time) and released by `close()`. Shared by the image and video engines.
 */
export class LazyDiffusionModel {
  private loaded?: LoadedDiffusionModel;
  private loading?: Promise<LoadedDiffusionModel>;

  constructor(private readonly source: DiffusionModelSource) {}

  get config(): DiffusionModelConfig | undefined {
    return this.loaded?.config;
  }

  ready(): Promise<LoadedDiffusionModel> {
    this.loading ??= this.load().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  async close(): Promise<void> {
    const session = this.loaded?.session;
    this.loaded = undefined;
    this.loading = undefined;
    await session?.release();
  }

  private async load(): Promise<LoadedDiffusionModel> {
    const { modelPath, configPath, threads, sessionFactory } = this.source;
    const config = loadDiffusionModelConfig(configPath ?? diffusionConfigPath(modelPath));
    const session = await (sessionFactory ?? onnxRuntimeSessionFactory)(modelPath, threads ?? Math.max(1, os.availableParallelism() - 1));
    this.loaded = { config, session, tokenizer: new WordTokenizer(config.vocab, config.maxTokens, config.tokenizer.unk) };
    return this.loaded;
  }
}
