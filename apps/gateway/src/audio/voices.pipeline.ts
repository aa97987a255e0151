import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog } from '@svc/catalog';
import { AUDIO, CloneVoiceReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { AUDIO_BLOBS, packUpload } from './audio-blobs';
import { CloneVoiceDto } from './voices.dto';

/** Largest voice sample accepted (a clean 5 to 30 s recording is far smaller). */
const MAX_SAMPLE_BYTES = 10 * 1024 * 1024;

/**
 * Voice cloning: the sample goes to the model's engine through the audio service, which answers
 * 400 for an engine that cannot clone (the embedded Flite). Nothing is charged for the clone
 * itself; speech in the cloned voice is billed per character (docs/audio.md).
 */
@Injectable()
export class VoicesPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(AUDIO_BLOBS) private readonly blobs: BlobStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async clone(call: RouteCall, input: CloneVoiceDto): Promise<CloneVoiceReply> {
    const { caller } = call;
    const model = this.catalog.require(input.model, 'tts');
    if (input.file.length > MAX_SAMPLE_BYTES)
      throw new DomainError(ErrorCode.PayloadTooLarge, `The voice sample is ${input.file.length} bytes; at most ${MAX_SAMPLE_BYTES} are accepted.`);
    const admission = this.admission.forModel(call, model);
    const audio = await packUpload(this.blobs, input.file, this.config.INFERENCE_TIMEOUT_MS);
    try {
      return await admission.run({ kind: 'tts', characters: 0 }, async ({ billing }) => {
        const result = await this.rpc.send(
          AUDIO.CLONE_VOICE,
          { caller, model: model.id, audio, billing },
          { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS },
        );
        return { result, usage: NO_TOKENS };
      });
    } finally {
      if ('blobId' in audio) await this.blobs.delete(audio.blobId).catch(() => undefined);
    }
  }
}
