import { DomainError, ErrorCode } from '@svc/errors';
import { BoundedQueue } from './bounded-queue';
import { ddimStep, ddimTimesteps, noiseTo } from './ddim';
import { LazyDiffusionModel, LoadedDiffusionModel } from './lazy-diffusion-model';
import { DenoiserSessionFactory } from './onnx-session';
import { encodePng, RgbImage, toSquareRgb, upscaleCover } from './rgb-image';
import { seededNormals } from './seeded-noise';

export interface ImageGenerateRequest {
  prompt: string;
  /** Guidance pushes away from this instead of from the empty prompt. */
  negativePrompt?: string;
  /** Output size; the model's native resolution is upscaled (cover + centre crop) to it. Default native. */
  width?: number;
  height?: number;
  steps?: number;
  /** Same seed, prompt and settings give the same pixels. Default: random. */
  seed?: number;
  /** Classifier-free guidance scale; 0 ignores the prompt, 1 is unguided conditional sampling. */
  cfgScale?: number;
  /** Image-to-image: this picture is noised to `strength` and denoised towards the prompt. */
  init?: RgbImage;
  /** 0 < strength <= 1: how much of the init image is replaced (1 = ignore it). Default 0.6. */
  strength?: number;
  signal?: AbortSignal;
}

export interface GeneratedImage {
  png: Buffer;
  /** The output pixels (RGB, row-major) for re-encoding, e.g. with sharp. */
  rgb: Uint8Array;
  width: number;
  height: number;
  nativeResolution: number;
  seed: number;
  steps: number;
  cfgScale: number;
  /** Prompt words the model has never seen (they are treated as unknown). */
  unknownWords: string[];
  ms: number;
}

export interface OnnxDiffusionEngineOptions {
  modelPath: string;
  /** Sidecar JSON; default: the model path with `.json`. */
  configPath?: string;
  /** onnxruntime intra-op threads; default all cores but one. */
  threads?: number;
  maxParallel?: number;
  maxQueue?: number;
  sessionFactory?: DenoiserSessionFactory;
}

export const IMAGE_LIMITS = { maxSide: 1024, maxSteps: 100, maxCfg: 30 } as const;

/**
 * Text-to-image (and prompt-guided image-to-image) with an epsilon-predicting ONNX denoiser and
 * deterministic DDIM sampling with classifier-free guidance. Loads any ONNX denoiser that follows
 * the svc-diffusion-v1 contract (inputs x, t, tokens; output eps) plus its sidecar JSON. Runs in
 * process: onnxruntime-node releases the event loop while it computes.
 */
export class OnnxDiffusionEngine {
  private readonly queue: BoundedQueue;
  private readonly model: LazyDiffusionModel;
  private closed = false;

  constructor(options: OnnxDiffusionEngineOptions) {
    this.queue = new BoundedQueue(options.maxParallel ?? 1, options.maxQueue ?? 8, 'The image model');
    this.model = new LazyDiffusionModel(options);
  }

  get nativeResolution(): number | undefined {
    return this.model.config?.resolution;
  }

  get stats(): { running: number; queued: number } {
    return this.queue.stats();
  }

  async ready(): Promise<void> {
    await this.model.ready();
  }

  async generate(request: ImageGenerateRequest): Promise<GeneratedImage> {
    if (this.closed) throw new DomainError(ErrorCode.ServiceUnavailable, 'The image model is shutting down.');
    const req = this.validate(request);
    const model = await this.model.ready();
    return this.queue.run(() => this.sample(req, model));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.model.close();
  }

  private validate(r: ImageGenerateRequest): ImageGenerateRequest {
    const bad = (msg: string) => new DomainError(ErrorCode.Validation, msg);
    for (const [name, v] of [
      ['width', r.width],
      ['height', r.height],
    ] as const) {
      if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > IMAGE_LIMITS.maxSide))
        throw bad(`${name} must be an integer from 1 to ${IMAGE_LIMITS.maxSide}`);
    }
    if (r.steps !== undefined && (!Number.isInteger(r.steps) || r.steps < 1 || r.steps > IMAGE_LIMITS.maxSteps))
      throw bad(`steps must be an integer from 1 to ${IMAGE_LIMITS.maxSteps}`);
    if (r.cfgScale !== undefined && !(r.cfgScale >= 0 && r.cfgScale <= IMAGE_LIMITS.maxCfg)) throw bad(`cfgScale must be from 0 to ${IMAGE_LIMITS.maxCfg}`);
    if (r.strength !== undefined && !(r.strength > 0 && r.strength <= 1)) throw bad('strength must be in (0, 1]');
    if (r.init && r.init.data.length !== r.init.width * r.init.height * r.init.channels) throw bad('init image size does not match its pixel data');
    return r;
  }

  private async sample(req: ImageGenerateRequest, { config, session, tokenizer }: LoadedDiffusionModel): Promise<GeneratedImage> {
    const started = Date.now();
    const size = config.resolution;
    const n = 3 * size * size;
    const steps = req.steps ?? config.defaults.steps;
    const cfg = req.cfgScale ?? config.defaults.guidance;
    const seed = req.seed ?? Math.floor(Math.random() * 2 ** 32);
    const { ids: cond, unknown } = tokenizer.encode(req.prompt);
    const uncond = tokenizer.encode(req.negativePrompt ?? '').ids;
    const tokens = BigInt64Array.from([...cond, ...uncond].map((v) => BigInt(v)));
    const ac = config.alphasCumprod;
    const strength = req.init ? (req.strength ?? 0.6) : 1;
    const ts = ddimTimesteps(steps, config.timesteps, strength);

    let x = seededNormals(seed, n);
    if (req.init) {
      const init = await toSquareRgb(req.init, size);
      const x0 = new Float32Array(n);
      for (let c = 0; c < 3; c++) for (let p = 0; p < size * size; p++) x0[c * size * size + p] = init[p * 3 + c] / 127.5 - 1;
      x = noiseTo(x0, x, ac[ts[0]]);
    }
    const batchX = new Float32Array(2 * n);
    for (let i = 0; i < ts.length; i++) {
      if (req.signal?.aborted) throw new DomainError(ErrorCode.ServiceUnavailable, 'Image generation was cancelled.');
      batchX.set(x, 0);
      batchX.set(x, n);
      const eps = await session.run({ x: batchX, t: new Float32Array([ts[i], ts[i]]), tokens, batch: 2, size, maxTokens: config.maxTokens });
      ddimStep(x, eps.subarray(0, n), eps.subarray(n, 2 * n), cfg, ac[ts[i]], i + 1 < ts.length ? ac[ts[i + 1]] : 1);
    }
    const native = new Uint8Array(size * size * 3);
    for (let p = 0; p < size * size; p++) {
      for (let c = 0; c < 3; c++) native[p * 3 + c] = Math.round((Math.min(1, Math.max(-1, x[c * size * size + p])) + 1) * 127.5);
    }
    const width = req.width ?? size;
    const height = req.height ?? size;
    const rgb = width === size && height === size ? native : await upscaleCover(native, size, size, width, height);
    return {
      png: await encodePng(rgb, width, height),
      rgb,
      width,
      height,
      nativeResolution: size,
      seed,
      steps,
      cfgScale: cfg,
      unknownWords: unknown,
      ms: Date.now() - started,
    };
  }
}
