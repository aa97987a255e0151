import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { AUDIO, CompleteAudioReply, QueueAudioReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { quote as priceOf, toNumber } from '@svc/pricing';
import { Admitted, AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { AUDIO_BLOBS, unpackAudio } from './audio-blobs';
import { CompleteAudioDto, formatFor, inputTooLong, limitOf, QueueAudioDto, QuoteAudioDto, RetrieveAudioDto, voiceFor } from './audio-request.dto';

const DEFAULT_QUEUE_LIMIT = 100_000;

/**
 * Asynchronous audio jobs (reference: /audio/quote, /audio/queue, /audio/retrieve, /audio/complete).
 * For speech models the queued `prompt` is the text to read; the credit for all of it is held at
 * queue time and the audio service settles it once when the job ends (docs/audio.md).
 */
@Injectable()
export class AudioJobsPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(AUDIO_BLOBS) private readonly blobs: BlobStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  quote(input: QuoteAudioDto): { quote: number } {
    const model = this.queueModel(input.model);
    if (input.character_count === undefined) {
      throw new DomainError(ErrorCode.Validation, `character_count is required: ${model.id} is priced per character.`, {
        _errors: [],
        character_count: { _errors: ['Required'] },
      });
    }
    return { quote: toNumber(priceOf(model.id, model.pricing, { kind: 'tts', characters: input.character_count }).total.usd) };
  }

  async queue(call: RouteCall, input: QueueAudioDto): Promise<QueueAudioReply> {
    const { caller } = call;
    const model = this.queueModel(input.model);
    const limit = limitOf(model, 'queue_character_limit', DEFAULT_QUEUE_LIMIT);
    const characters = [...input.prompt].length;
    if (characters > limit) throw inputTooLong('prompt', characters, limit, model.id);
    const params = {
      model: model.id,
      prompt: input.prompt,
      voice: voiceFor(model, input.voice),
      response_format: formatFor(model, input.response_format),
      speed: input.speed,
      language: input.language_code,
    };
    const admission = this.admission.forModel(call, model);
    const queue = async ({ billing }: Admitted) => ({
      result: await this.rpc.send(AUDIO.QUEUE, { caller, params, billing }, { requestId: caller.requestId }),
      usage: NO_TOKENS,
    });
    // The job's own hold, not the lease's; it stays open after this settlement: the job's worker settles it when the job ends.
    return admission.run({ kind: 'tts', characters }, queue, { ownReservation: true });
  }

  async retrieve(call: RouteCall, input: RetrieveAudioDto): Promise<unknown> {
    const { caller, reply } = call;
    const model = this.queueModel(input.model);
    const result = await this.rpc.send(
      AUDIO.RETRIEVE,
      { caller, model: model.id, queueId: input.queue_id, deleteMediaOnCompletion: input.delete_media_on_completion },
      { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS },
    );
    if (result.status === 'COMPLETED') {
      reply.header(HEADER.contentType, result.contentType);
      return unpackAudio(this.blobs, result.audio);
    }
    if (result.status === 'FAILED') throw new DomainError(ErrorCode.Internal, `The audio job failed: ${result.error}`);
    return result;
  }

  complete(call: RouteCall, input: CompleteAudioDto): Promise<CompleteAudioReply> {
    const { caller } = call;
    const model = this.queueModel(input.model);
    return this.rpc.send(AUDIO.COMPLETE, { caller, model: model.id, queueId: input.queue_id }, { requestId: caller.requestId });
  }

  private queueModel(requested: string): ModelDefinition {
    const model = this.catalog.resolve(requested, 'tts');
    if (!model)
      throw new DomainError(
        ErrorCode.ModelNotFound,
        `Model "${requested}" does not exist or cannot be queued. Audio jobs accept tts models: see GET /api/v1/models?type=tts.`,
      );
    return model;
  }
}
