import { z } from 'zod';
import { modelPricingSchema } from '@svc/pricing';

export const MODEL_TYPES = ['text', 'embedding', 'image', 'tts', 'asr', 'video', 'upscale', 'inpaint', 'music'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export const RATE_LIMIT_TIERS = ['XS', 'S', 'M', 'L'] as const;


/** Engines a model can run on. `embedded-*` run on this machine; `openai-compatible` is an upstream server. */
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
      kind: z.literal('embedded-word-vectors'),
      /** `.svec` word-vector file (see docs/models.md), relative to SVC_MODELS_DIR. */
      file: z.string().min(1),
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
    })
    .strict(),
]);
export type EngineConfig = z.infer<typeof engineSchema>;

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

export const catalogSchema = z
  .object({
    models: z.array(modelSchema).min(1),
    /** OpenAI (or other) model names mapped to ours, e.g. `gpt-4o-mini: svc-tiny-random`. */
    compatibilityMapping: z.record(z.string(), z.string()).default({}),
  })
  .strict();
export type CatalogFile = z.infer<typeof catalogSchema>;
