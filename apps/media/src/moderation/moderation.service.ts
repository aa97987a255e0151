import { Inject, Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { BlobStore, unpackInlineOrBlob } from '@svc/blob-store';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { CreateModerationReply, CreateModerationRequest, ImageBlob, ModerationInputPart, ModerationResult, moderationInputCount } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { SafeMode } from '../images/safe-mode';
import { BLOB_STORE, CATALOG, MEDIA_LOGGER } from '../images/tokens';
import { imageSafetyResult } from './image-safety-result';
import { UpstreamModerationEngine, UpstreamModerationPart } from './upstream-moderation.engine';

/**
 * Runs `POST /moderations` for a `moderation` model: `embedded-image-safety` scores images with the
 * safe-mode classifier (one result for the parts together: the highest score of its images);
 * `openai-compatible` passes the input to the upstream's `/moderations`. Settles the gateway's
 * hold with one request unit per string or part. Inputs are never logged; only counts.
 */
@Injectable()
export class ModerationService {
  private readonly upstreams = new Map<string, UpstreamModerationEngine>();

  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly safeMode: SafeMode,
    private readonly billing: BillingSettler,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(MEDIA_LOGGER) private readonly logger: Logger,
  ) {
    for (const model of catalog.ofType('moderation')) {
      const engine = model.engine;
      if (engine.kind !== 'openai-compatible') continue;
      const apiKey = engine.apiKeyEnv ? process.env[engine.apiKeyEnv] : undefined;
      this.upstreams.set(model.id, new UpstreamModerationEngine({ baseUrl: engine.baseUrl, model: engine.model, apiKey, timeoutMs: engine.timeoutMs }));
    }
  }

  async create({ caller, model: id, input, billing }: CreateModerationRequest): Promise<CreateModerationReply> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      const model = this.model(id);
      const results = model.engine.kind === 'openai-compatible' ? await this.upstream(model, input) : await this.embedded(model, input);
      charge({ kind: 'request', requests: moderationInputCount(input) });
      this.logger.info(
        {
          requestId: caller.requestId,
          model: model.id,
          inputs: moderationInputCount(input),
          flagged: results.filter((r) => r.flagged).length,
          ms: Date.now() - started,
        },
        'moderation',
      );
      return { model: model.id, results };
    });
  }

  private model(id: string): ModelDefinition {
    return this.catalog.require(id, 'moderation');
  }

  private async embedded(model: ModelDefinition, input: CreateModerationRequest['input']): Promise<ModerationResult[]> {
    // The gateway refuses text for this engine first, with the models that could take it.
    const images = input.kind === 'parts' ? input.parts.filter((p): p is Extract<ModerationInputPart, { type: 'image' }> => p.type === 'image') : [];
    if (input.kind === 'texts' || images.length !== input.parts.length)
      throw new DomainError(ErrorCode.Validation, `Model ${model.id} classifies images only; no text moderation model is configured for it.`);
    let highest = 0;
    for (const part of images) {
      const { data, width, height } = await this.decode(part.image);
      highest = Math.max(highest, await this.safeMode.score(data, width, height));
    }
    return [imageSafetyResult(highest, this.safeMode.threshold)];
  }

  private async upstream(model: ModelDefinition, input: CreateModerationRequest['input']): Promise<ModerationResult[]> {
    const engine = this.upstreams.get(model.id);
    if (!engine) throw new DomainError(ErrorCode.ServiceUnavailable, `Model ${model.id} is not served by this media service.`);
    if (input.kind === 'texts') return engine.classify(input.texts, input.texts.length);
    const parts: UpstreamModerationPart[] = [];
    for (const part of input.parts) {
      if (part.type === 'text') parts.push({ type: 'text', text: part.text });
      else parts.push({ type: 'image_url', image_url: { url: await this.dataUrl(part.image) } });
    }
    return engine.classify(parts, 1);
  }

  private take(blob: ImageBlob): Promise<Buffer> {
    const missing = () => new DomainError(ErrorCode.ServiceUnavailable, 'The image expired before it could be classified; send it again.');
    return unpackInlineOrBlob(this.blobs, blob, { missing });
  }

  private async decode(blob: ImageBlob): Promise<{ data: Uint8Array; width: number; height: number }> {
    const bytes = await this.take(blob);
    try {
      const { data, info } = await sharp(bytes).rotate().flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
    } catch {
      throw DomainError.validation([{ path: ['input'], message: 'an image could not be decoded' }]);
    }
  }

  /** The image as the data URL an upstream takes (OpenAI's `image_url.url`). */
  private async dataUrl(blob: ImageBlob): Promise<string> {
    const bytes = await this.take(blob);
    const format = await sharp(bytes)
      .metadata()
      .then((m) => m.format)
      .catch(() => undefined);
    const mime = format === 'jpeg' || format === 'png' || format === 'webp' || format === 'gif' ? `image/${format}` : 'application/octet-stream';
    return `data:${mime};base64,${bytes.toString('base64')}`;
  }
}
