import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { BlobStore, unpackInlineOrBlob } from '@svc/blob-store';
import {
  GeneratedImageRef,
  ImageBlob,
  ImageBackgroundRemoveRequest,
  ImageEditRequest,
  ImageFileReply,
  ImageGenerateReply,
  ImageGenerateRequest,
  ImageUpscaleRequest,
  applyStyle,
  findStyle,
} from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { MEDIA_CONFIG, MediaConfig } from '../config';
import { UpstreamImage } from '../engines/upstream/openai-image.engine';
import { removeBackground } from './background-matte';
import { finishImage } from './image-output';
import { ImageEngineRegistry } from './image-engine.registry';
import { SafeMode } from './safe-mode';
import { BLOB_STORE, MEDIA_LOGGER } from './tokens';

/** Upscaled outputs stay within this many pixels; a larger request gets a smaller factor. */
export const MAX_UPSCALE_PIXELS = 16_777_216;
const SEED_MAX = 999_999_999;

@Injectable()
export class ImageService {
  constructor(
    private readonly engines: ImageEngineRegistry,
    private readonly safeMode: SafeMode,
    private readonly billing: BillingSettler,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(MEDIA_CONFIG) private readonly config: MediaConfig,
    @Inject(MEDIA_LOGGER) private readonly logger: Logger,
  ) {}

  async generate({ caller, params, billing }: ImageGenerateRequest): Promise<ImageGenerateReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const model = this.engines.model(params.model, ['image']);
      const engine = this.engines.engine(model);
      let { prompt, negativePrompt } = params;
      if (params.stylePreset !== undefined) {
        const style = findStyle(params.stylePreset);
        if (!style) throw invalid('style_preset', `Unknown style "${params.stylePreset}". See GET /api/v1/image/styles.`);
        ({ prompt, negativePrompt } = applyStyle(style, prompt, negativePrompt));
      }
      const seed = params.seed ?? randomInt(0, SEED_MAX);
      const variants = Math.max(1, params.variants);
      // Variants are the same request with consecutive seeds, so each is reproducible on its own
      // (engines that batch, like sdapi's batch_size, number their images the same way).
      const request = { prompt, negativePrompt, steps: params.steps, cfgScale: params.cfgScale, seed, width: params.width, height: params.height };
      const raw =
        engine.generateBatch && variants > 1
          ? await engine.generateBatch(request, variants)
          : await Promise.all(Array.from({ length: variants }, (_, i) => engine.generate({ ...request, seed: seed + i })));
      const inferenceMs = Date.now() - started;
      const images = await Promise.all(
        raw.map((out) =>
          this.deliver(out, caller.requestId, {
            width: params.width,
            height: params.height,
            format: params.format,
            safeMode: params.safeMode,
            watermark: !params.hideWatermark,
            exif: params.embedExifMetadata
              ? {
                  description: prompt,
                  software: `svc ${model.id}`,
                  comment: JSON.stringify({
                    model: model.id,
                    seed: out.seed,
                    steps: out.steps,
                    cfg_scale: out.cfgScale,
                    width: params.width,
                    height: params.height,
                    ...(negativePrompt ? { negative_prompt: negativePrompt } : {}),
                    ...(params.stylePreset ? { style_preset: params.stylePreset } : {}),
                  }),
                }
              : undefined,
          }),
        ),
      );
      const totalMs = Date.now() - started;
      charge({ kind: 'image', images: images.length, resolution: params.resolution, quality: params.quality });
      this.logger.info(
        {
          requestId: caller.requestId,
          model: model.id,
          images: images.length,
          width: params.width,
          height: params.height,
          blurred: images.filter((i) => i.blurred).length,
          ms: totalMs,
        },
        'images generated',
      );
      return {
        images,
        seed,
        timing: { inferenceMs, postprocessMs: totalMs - inferenceMs, totalMs },
        blurred: images.some((i) => i.blurred),
        contentViolation: false,
      };
    });
  }

  async edit({ caller, params, billing }: ImageEditRequest): Promise<ImageFileReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const model = this.engines.model(params.model, ['inpaint', 'image']);
      const engine = this.engines.engine(model);
      const input = await this.decodeInput(params.image);
      const out = await engine.generate({
        prompt: params.prompt,
        init: { data: input.data, width: input.width, height: input.height, channels: 3 },
        seed: params.seed,
        width: params.width,
        height: params.height,
      });
      const image = await this.deliver(out, caller.requestId, {
        width: params.width,
        height: params.height,
        format: params.format,
        safeMode: params.safeMode,
        watermark: false,
      });
      const totalMs = Date.now() - started;
      charge({ kind: 'image-edit', edits: 1, resolution: params.resolution, quality: params.quality, inputImages: params.inputImages });
      this.logger.info(
        { requestId: caller.requestId, model: model.id, width: image.width, height: image.height, blurred: image.blurred, ms: totalMs },
        'image edited',
      );
      return { image, timing: { totalMs } };
    });
  }

  /** Classical upscaling: Lanczos resampling in libvips, then sharpening scaled by `creativity`. */
  async upscale({ caller, params, billing }: ImageUpscaleRequest): Promise<ImageFileReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const model = this.engines.model(params.model, ['upscale']);
      const bytes = await this.take(params.image);
      const meta = await sharp(bytes)
        .metadata()
        .catch(() => {
          throw invalid('image', 'The image could not be decoded.');
        });
      const width = meta.autoOrient?.width ?? meta.width;
      const height = meta.autoOrient?.height ?? meta.height;
      if (!width || !height) throw invalid('image', 'The image has no dimensions.');
      const scale = Math.min(params.scale, Math.sqrt(MAX_UPSCALE_PIXELS / (width * height)));
      const outWidth = Math.max(1, Math.floor(width * scale));
      const outHeight = Math.max(1, Math.floor(height * scale));
      let image = sharp(bytes).rotate().resize(outWidth, outHeight, { kernel: 'lanczos3', fit: 'fill' });
      if (params.creativity > 0) image = image.sharpen({ sigma: 0.5 + Math.min(params.creativity, 1) * 2.5 });
      const png = await image
        .png({ compressionLevel: 6 })
        .toBuffer()
        .catch(() => {
          throw invalid('image', 'The image could not be decoded.');
        });
      const ref = await this.blobs.put(png, this.config.IMAGE_BLOB_TTL_MS);
      const totalMs = Date.now() - started;
      charge({ kind: 'upscale', images: 1, factor: params.scale > 2 ? '4x' : '2x' });
      this.logger.info({ requestId: caller.requestId, model: model.id, width: outWidth, height: outHeight, ms: totalMs }, 'image upscaled');
      return { image: { ...ref, width: outWidth, height: outHeight, format: 'png', blurred: false, nsfwScore: null }, timing: { totalMs } };
    });
  }

  /** Classical background removal (background-matte.ts): a PNG with alpha, the input's size. */
  async backgroundRemove({ caller, params, billing }: ImageBackgroundRemoveRequest): Promise<ImageFileReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const model = this.engines.model(params.model, ['background-remove']);
      const bytes = await this.take(params.image);
      const out = await removeBackground(bytes).catch(() => {
        throw invalid('image', 'The image could not be decoded.');
      });
      const ref = await this.blobs.put(out.png, this.config.IMAGE_BLOB_TTL_MS);
      const totalMs = Date.now() - started;
      charge({ kind: 'request', requests: 1 });
      this.logger.info({ requestId: caller.requestId, model: model.id, width: out.width, height: out.height, ms: totalMs }, 'background removed');
      return { image: { ...ref, width: out.width, height: out.height, format: 'png', blurred: false, nsfwScore: null }, timing: { totalMs } };
    });
  }

  private async deliver(
    out: UpstreamImage,
    requestId: string,
    o: {
      width: number;
      height: number;
      format: GeneratedImageRef['format'];
      safeMode: boolean;
      watermark: boolean;
      exif?: { description: string; software: string; comment: string };
    },
  ): Promise<GeneratedImageRef> {
    const verdict = o.safeMode ? await this.safeMode.check(out.rgb, out.width, out.height, requestId) : { score: null, blur: false };
    const file = await finishImage(out.rgb, out.width, out.height, {
      width: o.width,
      height: o.height,
      format: o.format,
      watermark: o.watermark,
      blur: verdict.blur,
      exif: o.exif,
    });
    const ref = await this.blobs.put(file, this.config.IMAGE_BLOB_TTL_MS);
    return { ...ref, width: o.width, height: o.height, format: o.format, blurred: verdict.blur, nsfwScore: verdict.score };
  }

  private take(blob: ImageBlob): Promise<Buffer> {
    const message = 'The uploaded image expired before it was processed; send it again.';
    return unpackInlineOrBlob(this.blobs, blob, {
      missing: () => new DomainError(ErrorCode.Validation, message, { _errors: [], image: { _errors: ['expired'] } }),
    });
  }

  private async decodeInput(blob: ImageBlob): Promise<{ data: Uint8Array; width: number; height: number }> {
    const bytes = await this.take(blob);
    try {
      const { data, info } = await sharp(bytes).rotate().flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
    } catch {
      throw invalid('image', 'The image could not be decoded.');
    }
  }
}

function invalid(field: string, message: string): DomainError {
  return new DomainError(ErrorCode.Validation, message, { _errors: [], [field]: { _errors: [message] } });
}
