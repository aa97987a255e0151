import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog, imageConstraintsOf, ModelDefinition } from '@svc/catalog';
import { ImageGenerateParams, ImageGenerateReply, MEDIA } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { IMAGE_BLOBS, takeOutput } from './image-blobs';
import { MIME, setImageHeaders } from './image-headers';
import { ImageGenerateInput, imageGenerateSchema, OpenAiImageInput } from './image-request.dto';
import { invalidField, resolveGenerate } from './image-sizing';
import { PromptEnhancer } from './prompt-enhancer';

export interface ImageGenerateResponse {
  id: string;
  images: string[];
  timing: { inferenceDuration: number; inferencePreprocessingTime: number; inferenceQueueTime: number; total: number };
  request: unknown;
}

interface Generated {
  reply: ImageGenerateReply;
  files: Buffer[];
  enhancedPrompt: string | null;
  preprocessMs: number;
}

/**
 * Image generation (docs/images.md): `POST /image/generate` (base64 images or one file) and the
 * OpenAI-shaped `POST /images/generations`, which becomes a generate request. The model's sizes
 * are resolved (image-sizing.ts), the request admitted for its images, the prompt enhanced when
 * asked, and the media service generates and settles.
 */
@Injectable()
export class ImageGenerationPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    private readonly enhancer: PromptEnhancer,
    @Inject(IMAGE_BLOBS) private readonly blobs: BlobStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** `body` is the request as sent, echoed in the answer's `request`. */
  async generate(call: RouteCall, input: ImageGenerateInput, body: unknown): Promise<ImageGenerateResponse | Buffer> {
    const started = Date.now();
    const { caller, reply } = call;
    const model = this.catalog.require(input.model, 'image');
    const out = await this.run(call, model, input);
    setImageHeaders(reply, { blurred: out.reply.blurred, contentViolation: out.reply.contentViolation, enhancedPrompt: out.enhancedPrompt });
    if (input.return_binary) {
      reply.header('content-type', MIME[input.format]);
      return out.files[0];
    }
    return {
      id: caller.requestId,
      images: out.files.map((f) => f.toString('base64')),
      timing: {
        inferenceDuration: out.reply.timing.inferenceMs,
        inferencePreprocessingTime: out.preprocessMs,
        inferenceQueueTime: 0,
        total: Date.now() - started,
      },
      request: body,
    };
  }

  /** OpenAI Images API: `{created, data: [{b64_json}]}`; `response_format: url` gives data URLs. */
  async openAiGenerate(call: RouteCall, input: OpenAiImageInput) {
    // Unknown names (e.g. OpenAI's) fall back to the default image model, like the reference API.
    const model = this.catalog.resolve(input.model, 'image') ?? this.catalog.resolve('default', 'image');
    if (!model) throw new DomainError(ErrorCode.ModelNotFound, 'No image model is configured.');
    let width: number | undefined;
    let height: number | undefined;
    if (input.size && input.size !== 'auto') {
      [width, height] = input.size.split('x').map(Number);
      const c = imageConstraintsOf(model);
      if (!(width > 0 && height > 0 && width <= c.maxWidth && height <= c.maxHeight))
        throw invalidField('size', `must be at most ${c.maxWidth}x${c.maxHeight} for model ${model.id}`);
    }
    const format = input.output_format ?? 'png';
    const generateInput = parseBody(imageGenerateSchema, {
      model: model.id,
      prompt: input.prompt,
      width,
      height,
      variants: input.n ?? 1,
      format,
      safe_mode: input.moderation !== 'low',
    });
    const out = await this.run(call, model, generateInput);
    setImageHeaders(call.reply, { blurred: out.reply.blurred, contentViolation: out.reply.contentViolation });
    const data = out.files.map((f) =>
      input.response_format === 'url' ? { url: `data:${MIME[format]};base64,${f.toString('base64')}` } : { b64_json: f.toString('base64') },
    );
    return { created: Math.floor(Date.now() / 1000), data };
  }

  private async run(call: RouteCall, model: ModelDefinition, input: ImageGenerateInput): Promise<Generated> {
    const { caller, request } = call;
    const sizing = resolveGenerate(model, input);
    const admission = this.admission.forModel(call, model);
    const variants = input.variants ?? 1;
    return admission.run({ kind: 'image', images: variants, resolution: sizing.resolution, quality: sizing.quality }, async ({ billing }) => {
      const preprocessStarted = Date.now();
      const limit = imageConstraintsOf(model).promptCharacterLimit;
      const enhancedPrompt = input.enhance_prompt ? await this.enhancer.enhance(caller, request.apiKey!, request.ip, input.prompt, limit) : null;
      const preprocessMs = Date.now() - preprocessStarted;
      const params: ImageGenerateParams = {
        model: model.id,
        prompt: enhancedPrompt ?? input.prompt,
        negativePrompt: input.negative_prompt,
        width: sizing.width,
        height: sizing.height,
        steps: sizing.steps,
        cfgScale: sizing.cfgScale,
        seed: input.seed,
        variants,
        format: input.format,
        embedExifMetadata: input.embed_exif_metadata,
        hideWatermark: input.hide_watermark,
        safeMode: input.safe_mode,
        stylePreset: input.style_preset,
        resolution: sizing.resolution,
        quality: sizing.quality,
      };
      const result = await this.rpc.send(
        MEDIA.IMAGE_GENERATE,
        { caller, params, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS, resendUntaken: true },
      );
      const files = await Promise.all(result.images.map((img) => takeOutput(this.blobs, img)));
      return { result: { reply: result, files, enhancedPrompt, preprocessMs }, usage: NO_TOKENS };
    });
  }
}
