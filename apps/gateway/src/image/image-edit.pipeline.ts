import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog, imageConstraintsOf, ModelDefinition } from '@svc/catalog';
import { BillableUsage, ImageEditParams, ImageFileReply, ImageFormat, MEDIA, RequestBilling } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, ModelAdmission, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { IMAGE_BLOBS, IMAGE_URL_FETCHER, INPUT_BLOB_TTL_MS, takeOutput } from './image-blobs';
import { MIME, setImageHeaders } from './image-headers';
import { imageBytesOf, ImageUrlFetcher, INPUT_LIMITS, InputImage, inspectImage } from './image-input';
import { EDIT_ASPECT_RATIOS, ImageBackgroundRemoveInput, ImageEditInput, ImageMultiEditInput, ImageUpscaleInput, OpenAiEditInput } from './image-request.dto';
import { closestRatio, fitRatio, invalidField, pricedTiers, TIER_SIDE } from './image-sizing';
import { composeLayers } from './image-layers';
import { PromptEnhancer } from './prompt-enhancer';

/** Upscaled outputs stay within this many pixels (the media service lowers the factor to fit). */
const MAX_UPSCALE_OUTPUT_PIXELS = 16_777_216;
const MAX_OPENAI_EDIT_SIDE = 2048;
/** Multi-edit's limit for a combineImages model without `maxInputImages` (as the reference API). */
const DEFAULT_MAX_INPUT_IMAGES = 3;

/** An edit as the media service takes it (ImageEditParams), before its image is stored and its prompt enhanced. */
interface EditJob extends Omit<ImageEditParams, 'model' | 'image'> {
  model: ModelDefinition;
  image: InputImage;
  enhance: boolean;
  /** Images the caller sent (multi-edit), priced by `pricing.inputImages`; 1 for a plain edit. */
  inputImages?: number;
}

/**
 * The routes that take an image (docs/images.md): `POST /image/edit`, `/image/multi-edit`, the
 * OpenAI-shaped `POST /images/edits` (an image back, or `{created, data}`), `/image/upscale` and
 * `/image/background-remove` (a PNG back). The model's limits are checked and the image read and
 * inspected before admission; then the media service runs it under one admission.
 */
@Injectable()
export class ImageEditPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    private readonly enhancer: PromptEnhancer,
    @Inject(IMAGE_BLOBS) private readonly blobs: BlobStore,
    @Inject(IMAGE_URL_FETCHER) private readonly fetcher: ImageUrlFetcher,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async edit(call: RouteCall, input: ImageEditInput): Promise<Buffer> {
    const model = this.editModel(input.model ?? input.modelId);
    this.checkEdit(input, model);
    const image = await inspectImage(await imageBytesOf(input.image, this.fetcher), INPUT_LIMITS);
    return this.sendEdit(call, input, model, image, 1);
  }

  /**
   * Several images, one prompt: the first is the base, the rest are layers drawn over it
   * (image-layers.ts); the composite is edited like `POST /image/edit`, billed as one edit with
   * its number of input images. Models without `combineImages` take one image.
   */
  async multiEdit(call: RouteCall, input: ImageMultiEditInput): Promise<Buffer> {
    const model = this.editModel(input.model ?? input.modelId);
    const c = imageConstraintsOf(model);
    const max = c.combineImages ? (c.maxInputImages ?? DEFAULT_MAX_INPUT_IMAGES) : 1;
    if (input.images.length > max) throw invalidField('images', `must hold at most ${max} images for model ${model.id}`);
    this.checkEdit(input, model);
    const images = await Promise.all(input.images.map(async (value) => inspectImage(await imageBytesOf(value, this.fetcher), INPUT_LIMITS)));
    return this.sendEdit(call, input, model, await composeLayers(images), images.length);
  }

  /** OpenAI Images API edit (multipart): `{created, data: [{b64_json}]}`. */
  async openAiEdit(call: RouteCall, input: OpenAiEditInput) {
    // OpenAI model names (dall-e-2, gpt-image-1) map to the default edit model.
    const model = (input.model && this.catalog.resolve(input.model, 'inpaint')) || this.editModel(undefined);
    const image = await inspectImage(await imageBytesOf(input.image, this.fetcher), INPUT_LIMITS);
    let width: number;
    let height: number;
    if (input.size && input.size !== 'auto') {
      [width, height] = input.size.split('x').map(Number);
      if (!(width > 0 && height > 0 && width <= MAX_OPENAI_EDIT_SIDE && height <= MAX_OPENAI_EDIT_SIDE))
        throw invalidField('size', `must be at most ${MAX_OPENAI_EDIT_SIDE}x${MAX_OPENAI_EDIT_SIDE}`);
    } else {
      [width, height] = fitRatio([image.width, image.height], 1024);
    }
    const format = input.output_format ?? 'png';
    const out = await this.runEdit(call, { model, image, prompt: input.prompt, width, height, format, safeMode: true, enhance: false });
    const b64 = out.file.toString('base64');
    return {
      created: Math.floor(Date.now() / 1000),
      data: [input.response_format === 'url' ? { url: `data:${MIME[format]};base64,${b64}` } : { b64_json: b64 }],
    };
  }

  async upscale(call: RouteCall, input: ImageUpscaleInput): Promise<Buffer> {
    const { caller, reply } = call;
    const name = input.model ?? 'default';
    const model = this.catalog.require(name, 'upscale');
    // At least 2x must fit in the output cap; larger factors shrink to fit (in the media service).
    const image = await inspectImage(await imageBytesOf(input.image, this.fetcher), {
      minPixels: INPUT_LIMITS.minPixels,
      maxPixels: MAX_UPSCALE_OUTPUT_PIXELS / 4,
    });
    const admission = this.admission.forModel(call, model);
    const out = await this.admitted(admission, { kind: 'upscale', images: 1, factor: input.scale > 2 ? '4x' : '2x' }, async (billing) => {
      const ref = await this.blobs.put(image.bytes, INPUT_BLOB_TTL_MS);
      return this.rpc.send(
        MEDIA.IMAGE_UPSCALE,
        { caller, params: { model: model.id, image: ref, scale: input.scale, creativity: input.creativity ?? 0 }, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS, resendUntaken: true },
      );
    });
    reply.header('content-type', 'image/png');
    return out.file;
  }

  /** Classical background removal (svc-bg-classical): a PNG with alpha, the input's size. */
  async backgroundRemove(call: RouteCall, input: ImageBackgroundRemoveInput): Promise<Buffer> {
    const { caller, reply } = call;
    const name = input.model ?? 'default';
    const model = this.catalog.require(name, 'background-remove', 'a background removal model');
    const image = await inspectImage(await imageBytesOf((input.image ?? input.image_url)!, this.fetcher), INPUT_LIMITS);
    const admission = this.admission.forModel(call, model);
    const out = await this.admitted(admission, { kind: 'request', requests: 1 }, async (billing) => {
      const ref = await this.blobs.put(image.bytes, INPUT_BLOB_TTL_MS);
      return this.rpc.send(
        MEDIA.IMAGE_BACKGROUND_REMOVE,
        { caller, params: { model: model.id, image: ref }, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS, resendUntaken: true },
      );
    });
    reply.header('content-type', 'image/png');
    return out.file;
  }

  /** The model's limits on an edit's prompt, resolution, quality and aspect ratio. */
  private checkEdit(input: Omit<ImageEditInput, 'image'>, model: ModelDefinition): void {
    const c = imageConstraintsOf(model);
    if (input.prompt.length > c.promptCharacterLimit)
      throw invalidField('prompt', `must be at most ${c.promptCharacterLimit} characters for model ${model.id}`);
    if (c.resolutions && !c.resolutions.includes(input.resolution))
      throw invalidField('resolution', `must be one of ${c.resolutions.join(', ')} for model ${model.id}`);
    if (input.quality && c.qualities && !c.qualities.includes(input.quality))
      throw invalidField('quality', `must be one of ${c.qualities.join(', ')} for model ${model.id}`);
    const supported = c.aspectRatios ?? EDIT_ASPECT_RATIOS.filter((r) => r !== 'auto');
    if (input.aspect_ratio && input.aspect_ratio !== 'auto' && !supported.includes(input.aspect_ratio))
      throw invalidField('aspect_ratio', `must be auto or one of ${supported.join(', ')} for model ${model.id}`);
  }

  private async sendEdit(
    call: RouteCall,
    input: Omit<ImageEditInput, 'image'>,
    model: ModelDefinition,
    image: InputImage,
    inputImages: number,
  ): Promise<Buffer> {
    const c = imageConstraintsOf(model);
    const supported = c.aspectRatios ?? EDIT_ASPECT_RATIOS.filter((r) => r !== 'auto');
    const ratio = !input.aspect_ratio || input.aspect_ratio === 'auto' ? closestRatio(image.width, image.height, supported) : input.aspect_ratio;
    const [rw, rh] = ratio.split(':').map(Number);
    const [width, height] = fitRatio([rw, rh], TIER_SIDE[input.resolution] ?? 1024);
    const format: ImageFormat = input.output_format === 'jpg' ? 'jpeg' : (input.output_format ?? (input.resolution === '1K' ? 'png' : 'jpeg'));
    const priced = pricedTiers(model);
    const out = await this.runEdit(call, {
      model,
      image,
      prompt: input.prompt,
      width,
      height,
      format,
      safeMode: input.safe_mode,
      seed: input.seed,
      resolution: priced.resolution ? input.resolution : undefined,
      quality: priced.quality ? (input.quality ?? c.defaultQuality) : undefined,
      enhance: input.enhance_prompt,
      inputImages,
    });
    call.reply.header('content-type', MIME[format]);
    return out.file;
  }

  private editModel(requested: string | undefined): ModelDefinition {
    const name = requested ?? 'default';
    return this.catalog.require(name, 'inpaint', 'an image edit model');
  }

  private async runEdit(call: RouteCall, job: EditJob): Promise<{ file: Buffer }> {
    const { caller, request, reply } = call;
    const { model, image, enhance, inputImages, ...params } = job;
    const admission = this.admission.forModel(call, model);
    const worstCase: BillableUsage = { kind: 'image-edit', edits: 1, resolution: params.resolution, quality: params.quality, inputImages };
    let enhanced: string | null = null;
    const out = await this.admitted(admission, worstCase, async (billing) => {
      // The text model sees only the prompt, not the image.
      if (enhance) enhanced = await this.enhancer.enhance(caller, request.apiKey!, request.ip, params.prompt, imageConstraintsOf(model).promptCharacterLimit);
      const ref = await this.blobs.put(image.bytes, INPUT_BLOB_TTL_MS);
      return this.rpc.send(
        MEDIA.IMAGE_EDIT,
        { caller, params: { ...params, model: model.id, prompt: enhanced ?? params.prompt, image: ref, inputImages }, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS, resendUntaken: true },
      );
    });
    setImageHeaders(reply, { blurred: out.reply.image.blurred, contentViolation: false, enhancedPrompt: enhanced });
    return out;
  }

  /** Admission (rate limit + credit hold), the media call, delivery of the file; settles exactly once. */
  private async admitted(
    admission: ModelAdmission,
    worstCase: BillableUsage,
    call: (billing: RequestBilling | undefined) => Promise<ImageFileReply>,
  ): Promise<{ reply: ImageFileReply; file: Buffer }> {
    return admission.run(worstCase, async ({ billing }) => {
      const result = await call(billing);
      const file = await takeOutput(this.blobs, result.image);
      return { result: { reply: result, file }, usage: NO_TOKENS };
    });
  }
}
