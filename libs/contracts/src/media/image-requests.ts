import { RequestBilling } from '../billing/subjects';
import { QualityTier } from '../billing/usage';
import { CallerContext } from '../services';

/** Short-lived bytes in the blob store (`@svc/blob-store`): images never cross NATS inline. */
export interface ImageBlob {
  blobId: string;
  bytes: number;
}

export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** Validated by the gateway; the media service re-checks what the engine needs. */
export interface ImageGenerateParams {
  /** Catalog model id (resolved by the gateway). */
  model: string;
  prompt: string;
  negativePrompt?: string;
  width: number;
  height: number;
  steps?: number;
  cfgScale?: number;
  /** Absent: a random seed per request. Variants use seed, seed+1, ... */
  seed?: number;
  variants: number;
  format: ImageFormat;
  embedExifMetadata: boolean;
  hideWatermark: boolean;
  safeMode: boolean;
  stylePreset?: string;
  /** Billing tier (priced under `model_spec.pricing.quality`), passed through for settlement. */
  resolution?: string;
  quality?: QualityTier;
}

export interface ImageGenerateRequest {
  caller: CallerContext;
  params: ImageGenerateParams;
  billing?: RequestBilling;
}

export interface GeneratedImageRef extends ImageBlob {
  width: number;
  height: number;
  format: ImageFormat;
  blurred: boolean;
  /** The safe-mode classifier's adult probability (0..1), or null when safe mode was off. */
  nsfwScore: number | null;
}

export interface ImageGenerateReply {
  images: GeneratedImageRef[];
  /** Milliseconds: queued + inference + post-processing. */
  timing: { inferenceMs: number; postprocessMs: number; totalMs: number };
  seed: number;
  /** True when any output was blurred by safe mode. */
  blurred: boolean;
  contentViolation: boolean;
}

export interface ImageEditParams {
  model: string;
  prompt: string;
  image: ImageBlob;
  /** Output size chosen by the gateway from aspect ratio and resolution. */
  width: number;
  height: number;
  format: ImageFormat;
  safeMode: boolean;
  seed?: number;
  resolution?: string;
  quality?: QualityTier;
  /** Images the caller sent (multi-edit composes them into `image`), priced by `pricing.inputImages`. */
  inputImages?: number;
}

export interface ImageEditRequest {
  caller: CallerContext;
  params: ImageEditParams;
  billing?: RequestBilling;
}

export interface ImageUpscaleParams {
  model: string;
  image: ImageBlob;
  scale: number;
  /** 0..1: sharpening added after the resample (the classical upscaler's "detail"). */
  creativity: number;
}

export interface ImageUpscaleRequest {
  caller: CallerContext;
  params: ImageUpscaleParams;
  billing?: RequestBilling;
}

export interface ImageBackgroundRemoveParams {
  model: string;
  image: ImageBlob;
}

export interface ImageBackgroundRemoveRequest {
  caller: CallerContext;
  params: ImageBackgroundRemoveParams;
  billing?: RequestBilling;
}

/** Edit, upscale and background removal return one file. */
export interface ImageFileReply {
  image: GeneratedImageRef;
  timing: { totalMs: number };
}

export interface ImageStyle {
  name: string;
  /** Text the engine appends to the prompt. */
  prompt: string;
  negativePrompt?: string;
}
