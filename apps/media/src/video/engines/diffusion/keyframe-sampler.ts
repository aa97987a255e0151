import { DomainError, ErrorCode } from '@svc/errors';
import { ddimStep, ddimTimesteps, noiseTo } from '../../../engines/diffusion/ddim';
import { DiffusionModelConfig } from '../../../engines/diffusion/diffusion-model-config';
import { DenoiserSession } from '../../../engines/diffusion/onnx-session';

export interface Keyframe {
  /** Starting noise, [3, size, size]. */
  noise: Float32Array;
  /** Image-to-video: how much of the init image is replaced (0 < strength <= 1); 1 without an init image. */
  strength: number;
}

export interface KeyframeBatchInput {
  session: DenoiserSession;
  config: DiffusionModelConfig;
  /** Token ids of the prompt and of the negative prompt (`maxTokens` each). */
  cond: number[];
  uncond: number[];
  steps: number;
  guidance: number;
  /** Image-to-video: the given image at the model's size, [3, size, size] in [-1, 1]. */
  init?: Float32Array;
  keyframes: Keyframe[];
  signal: AbortSignal;
  /** Called after each denoising step of the batch. */
  onStep(): void;
}

/**
 * Denoises several keyframes in one batch of the ONNX denoiser (deterministic DDIM with
 * classifier-free guidance, as the image engine does), each from its own noise and, for
 * image-to-video, its own strength. Returns each keyframe as RGB bytes, row-major, at the
 * model's native size.
 */
export async function sampleKeyframes(input: KeyframeBatchInput): Promise<Uint8Array[]> {
  const { config, keyframes } = input;
  const size = config.resolution;
  const n = 3 * size * size;
  const m = keyframes.length;
  const ac = config.alphasCumprod;
  const schedules = keyframes.map((k) => ddimTimesteps(input.steps, config.timesteps, input.init ? k.strength : 1));
  const xs = keyframes.map((k, i) => (input.init ? noiseTo(input.init, Float32Array.from(k.noise), ac[schedules[i][0]]) : Float32Array.from(k.noise)));
  const ids = [...Array<number[]>(m).fill(input.cond), ...Array<number[]>(m).fill(input.uncond)].flat();
  const tokens = BigInt64Array.from(ids.map((v) => BigInt(v)));
  const batchX = new Float32Array(2 * m * n);
  const t = new Float32Array(2 * m);
  for (let step = 0; step < input.steps; step++) {
    if (input.signal.aborted) throw new DomainError(ErrorCode.ServiceUnavailable, 'Video generation was cancelled.');
    for (let i = 0; i < m; i++) {
      batchX.set(xs[i], i * n);
      batchX.set(xs[i], (m + i) * n);
      t[i] = t[m + i] = schedules[i][step];
    }
    const eps = await input.session.run({ x: batchX, t, tokens, batch: 2 * m, size, maxTokens: config.maxTokens });
    for (let i = 0; i < m; i++) {
      const ts = schedules[i];
      const next = step + 1 < ts.length ? ac[ts[step + 1]] : 1;
      ddimStep(xs[i], eps.subarray(i * n, (i + 1) * n), eps.subarray((m + i) * n, (m + i + 1) * n), input.guidance, ac[ts[step]], next);
    }
    input.onStep();
  }
  return xs.map((x) => toRgb(x, size));
}

/** [3, size, size] in [-1, 1] to row-major RGB bytes. */
export function toRgb(x: Float32Array, size: number): Uint8Array {
  const plane = size * size;
  const rgb = new Uint8Array(plane * 3);
  for (let p = 0; p < plane; p++) for (let c = 0; c < 3; c++) rgb[p * 3 + c] = Math.round((Math.min(1, Math.max(-1, x[c * plane + p])) + 1) * 127.5);
  return rgb;
}

/** Row-major RGB bytes to [3, size, size] in [-1, 1]. */
export function fromRgb(rgb: Uint8Array, size: number): Float32Array {
  const plane = size * size;
  const x = new Float32Array(plane * 3);
  for (let p = 0; p < plane; p++) for (let c = 0; c < 3; c++) x[c * plane + p] = rgb[p * 3 + c] / 127.5 - 1;
  return x;
}
