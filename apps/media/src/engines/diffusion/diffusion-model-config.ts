import * as fs from 'node:fs';
import { z } from 'zod';

/** The sidecar JSON written by models/zoo/image/export_onnx.py next to the .onnx file. */
export const diffusionModelConfigSchema = z.object({
  format: z.literal('svc-diffusion-v1'),
  resolution: z.number().int().positive(),
  channels: z.literal(3),
  prediction: z.literal('epsilon'),
  maxTokens: z.number().int().positive(),
  timesteps: z.number().int().positive(),
  alphasCumprod: z.array(z.number().gt(0).lte(1)),
  defaults: z.object({ steps: z.number().int().positive(), guidance: z.number().nonnegative() }),
  tokenizer: z.object({ type: z.literal('word'), lowercase: z.literal(true), pad: z.literal(0), unk: z.number().int() }),
  vocab: z.array(z.string()),
});
export type DiffusionModelConfig = z.infer<typeof diffusionModelConfigSchema>;

export function diffusionConfigPath(onnxPath: string): string {
  return onnxPath.replace(/\.onnx$/i, '') + '.json';
}

export function loadDiffusionModelConfig(file: string): DiffusionModelConfig {
  const parsed = diffusionModelConfigSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file} is not an svc-diffusion-v1 model description: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  if (parsed.data.alphasCumprod.length !== parsed.data.timesteps) throw new Error(`${file}: alphasCumprod must have ${parsed.data.timesteps} entries`);
  return parsed.data;
}
