import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { CloneVoiceReply, CloneVoiceRequest } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { toDomainError } from '../audio-errors';
import { AudioPayloads } from '../audio-payloads';
import { modelOfType } from '../audio-models';
import { AUDIO_CONFIG, AudioConfig } from '../config';
import { AudioEngineRegistry } from '../engines/engine-registry';
import { BadAudioError, probeAudio } from '../engines/ffmpeg/probe';
import { AUDIO_LOGGER, CATALOG } from '../tokens';
import { cannotClone, cloningOf, sampleError, upstreamVoice } from './voice-cloning';

const PROBE_TIMEOUT_MS = 30_000;

/** `POST /audio/voices`: a checked voice sample to the model's engine, under a fresh `vv_` handle. */
@Injectable()
export class VoicesService {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly engines: AudioEngineRegistry,
    private readonly payloads: AudioPayloads,
    private readonly billing: BillingSettler,
    @Inject(AUDIO_CONFIG) private readonly config: AudioConfig,
    @Inject(AUDIO_LOGGER) private readonly logger: Logger,
  ) {}

  async clone({ caller, model: modelId, audio, billing }: CloneVoiceRequest): Promise<CloneVoiceReply> {
    try {
      // Nothing is charged: the hold is released; speech in the cloned voice is billed per character.
      return await this.billing.around(billing, caller.requestId, async (_charge, started) => {
        const model = modelOfType(this.catalog, modelId, 'tts');
        const engine = this.engines.speechEngine(model);
        const cloning = cloningOf(model);
        if (!cloning || !engine.cloneVoice) throw cannotClone(model);
        const sample = await this.payloads.unpack(audio);
        await this.checkSample(sample, model, cloning.accepted_formats);
        const handle = `vv_${randomBytes(12).toString('hex')}`;
        await engine.cloneVoice(sample, upstreamVoice(handle, caller.accountId), AbortSignal.timeout(this.config.AUDIO_REQUEST_TIMEOUT_MS));
        this.logger.info({ requestId: caller.requestId, model: model.id, bytes: sample.length, ms: Date.now() - started }, 'voice cloned');
        return { id: handle, model: model.id };
      });
    } catch (err) {
      throw toDomainError(err, this.logger, caller.requestId);
    }
  }

  private async checkSample(sample: Buffer, model: ModelDefinition, accepted: string[]): Promise<void> {
    const probed = await probeAudio(sample, PROBE_TIMEOUT_MS).catch((err: unknown) => {
      if (err instanceof BadAudioError) throw sampleError(err.message);
      throw err;
    });
    const container = probed.container === 'mov' ? 'm4a' : probed.container;
    if (accepted.length > 0 && !accepted.includes(container))
      throw sampleError(`${model.id} accepts voice samples in ${accepted.join(', ')}; this file is ${container}.`);
  }
}
