import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { ModerationInput, MODERATIONS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { IMAGE_BLOBS, IMAGE_URL_FETCHER, INPUT_BLOB_TTL_MS } from '../image/image-blobs';
import { imageBytesOf, ImageUrlFetcher, INPUT_LIMITS, inspectImage } from '../image/image-input';
import { CATALOG } from '../models/models.tokens';
import { moderationModelFor } from './moderation-model';
import { checkTextSize, hasText, ModerationsRequest, requestedInputOf } from './moderations-request.dto';
import { ModerationsResponse } from './moderations-response';

const FREE = { usd: 0, diem: 0 };
/** The classifier resizes to 224x224; any decodable image within the image routes' pixel cap is taken. */
const MODERATED_IMAGE_BOUNDS = { minPixels: 1, maxPixels: INPUT_LIMITS.maxPixels };

/**
 * `POST /moderations`: picks the moderation model (moderation-model.ts), fetches and checks the
 * images (SSRF guard, size and type) before any credit is held, then admits the request for one
 * request unit per string or part at the model's `pricing.per_request` (free when it has none,
 * as OpenAI's moderation is) and has the media service classify it and settle.
 */
@Injectable()
export class ModerationsPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(IMAGE_BLOBS) private readonly blobs: BlobStore,
    @Inject(IMAGE_URL_FETCHER) private readonly fetcher: ImageUrlFetcher,
  ) {}

  async run(call: RouteCall, request: ModerationsRequest): Promise<ModerationsResponse> {
    const { caller } = call;
    const requested = requestedInputOf(request);
    checkTextSize(requested);
    const model = moderationModelFor(this.catalog, request.model, hasText(requested));
    const admission = this.admission.forModel(call, pricedPerInput(model));
    const parts = requested.kind === 'parts' ? await Promise.all(requested.parts.map((p) => (p.type === 'image' ? this.image(p.url) : p))) : [];
    // As the media service charges it (moderationInputCount): one unit per string or part.
    const count = requested.kind === 'texts' ? requested.texts.length : parts.length;
    return admission.run({ kind: 'request', requests: count }, async ({ billing }) => {
      let input: ModerationInput;
      if (requested.kind === 'texts') input = requested;
      else {
        input = { kind: 'parts', parts: [] };
        for (const part of parts) input.parts.push(Buffer.isBuffer(part) ? { type: 'image', image: await this.blobs.put(part, INPUT_BLOB_TTL_MS) } : part);
      }
      const reply = await this.rpc.send(
        MODERATIONS.CREATE,
        { caller, model: model.id, input, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS, resendUntaken: true },
      );
      return { result: { id: `modr-${randomBytes(12).toString('hex')}`, model: reply.model, results: reply.results }, usage: NO_TOKENS };
    });
  }

  /** The image's bytes: fetched (http(s), through the SSRF guard) or decoded (data URL, base64), and checked; a 400 on `image` otherwise. */
  private async image(url: string): Promise<Buffer> {
    return (await inspectImage(await imageBytesOf(url, this.fetcher), MODERATED_IMAGE_BOUNDS)).bytes;
  }
}

/** Admission prices the request by `per_request` only (the catalog refuses any other price on a moderation model). */
function pricedPerInput(model: ModelDefinition): ModelDefinition {
  return { ...model, pricing: { per_request: model.pricing.per_request ?? FREE } };
}
