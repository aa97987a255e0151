import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { z } from 'zod';
import { BlobStore } from '@svc/blob-store';
import { Catalog } from '@svc/catalog';
import { AUDIO, CallerContext, CloneVoiceReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { plainBody } from '../image/multipart-body';
import { CATALOG } from '../models/models.tokens';
import { AUDIO_BLOBS, packUpload } from './audio-blobs';

/** Largest voice sample accepted (a clean 5 to 30 s recording is far smaller). */
const MAX_SAMPLE_BYTES = 10 * 1024 * 1024;

/** `POST /audio/voices` (reference CreateClonedVoiceRequestSchema). */
export const cloneVoiceSchema = z
  .object({
    file: z.instanceof(Buffer, { message: 'file is required: upload the voice sample as a multipart file field' }),
    model: z.string().min(1).max(256).default('default'),
  })
  .strict();

/**
 * Voice cloning: the sample goes to the model's engine through the audio service, which answers
 * 400 for an engine that cannot clone (the embedded Flite). Nothing is charged for the clone
 * itself; speech in the cloned voice is billed per character (docs/audio.md).
 */
@Controller('audio')
export class VoicesController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(AUDIO_BLOBS) private readonly blobs: BlobStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post('voices')
  @HttpCode(200)
  async clone(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CloneVoiceReply> {
    if (!request.isMultipart()) throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the voice sample as multipart/form-data with a "file" field.');
    const input = parseBody(cloneVoiceSchema, await plainBody(body));
    const model = this.catalog.resolve(input.model, 'tts');
    if (!model) throw new DomainError(ErrorCode.ModelNotFound, `Model "${input.model}" does not exist or is not a tts model. See GET /api/v1/models?type=tts.`);
    if (input.file.length > MAX_SAMPLE_BYTES)
      throw new DomainError(ErrorCode.PayloadTooLarge, `The voice sample is ${input.file.length} bytes; at most ${MAX_SAMPLE_BYTES} are accepted.`);
    const admission = this.admission.forModel({ caller, request, reply }, model);
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
