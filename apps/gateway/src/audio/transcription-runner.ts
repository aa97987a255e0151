import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { AUDIO, TranscribeReply, TranscriptionParams } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS, RouteCall } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { CATALOG } from '../models/models.tokens';
import { AUDIO_BLOBS, packUpload } from './audio-blobs';
import { limitOf } from './audio-request.dto';

const DEFAULT_MAX_FILE_BYTES = 25 * 1024 * 1024;

/**
 * Speech to text for the routes that have audio (an upload, or a video fetched from its URL): the
 * audio service measures the duration and refuses what is not audio before anything is reserved,
 * then admission prices the seconds and the audio service transcribes.
 */
@Injectable()
export class TranscriptionRunner {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(AUDIO_BLOBS) private readonly blobs: BlobStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** A `type` model of the catalog, or a 404 naming the discovery route. */
  model(requested: string, type: 'tts' | 'asr'): ModelDefinition {
    const model = this.catalog.resolve(requested, type);
    if (!model)
      throw new DomainError(ErrorCode.ModelNotFound, `Model "${requested}" does not exist or is not a ${type} model. See GET /api/v1/models?type=${type}.`);
    return model;
  }

  /** The largest media file `model` takes, in bytes. */
  maxFileBytes(model: ModelDefinition): number {
    return limitOf(model, 'max_file_bytes', DEFAULT_MAX_FILE_BYTES);
  }

  async transcribe(call: RouteCall, model: ModelDefinition, file: Buffer, params: Omit<TranscriptionParams, 'model'>): Promise<TranscribeReply> {
    const { caller } = call;
    const maxBytes = this.maxFileBytes(model);
    if (file.length > maxBytes)
      throw new DomainError(ErrorCode.PayloadTooLarge, `The audio file is ${file.length} bytes; ${model.id} accepts at most ${maxBytes}.`);
    const admission = this.admission.forModel(call, model);
    const audio = await packUpload(this.blobs, file, this.config.INFERENCE_TIMEOUT_MS);
    let admitted = false;
    try {
      const probe = await this.rpc.send(AUDIO.PROBE, { caller, model: model.id, audio, keep: true }, { requestId: caller.requestId });
      return await admission.run({ kind: 'asr', audioMs: probe.durationMs }, async ({ billing }) => {
        admitted = true;
        const transcribed = await this.rpc.send(
          AUDIO.TRANSCRIBE,
          { caller, params: { ...params, model: model.id }, audio, billing },
          { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS },
        );
        return { result: transcribed, usage: NO_TOKENS };
      });
    } finally {
      if (!admitted && 'blobId' in audio) await this.blobs.delete(audio.blobId).catch(() => undefined);
    }
  }
}
