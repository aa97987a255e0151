import { Inject, Injectable } from '@nestjs/common';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { ProbeAudioReply, ProbeAudioRequest, TranscribeReply, TranscribeRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { toDomainError } from '../audio-errors';
import { AudioPayloads } from '../audio-payloads';
import { modelOfType } from '../audio-models';
import { AUDIO_CONFIG, AudioConfig } from '../config';
import { BadAudioError, probeAudio } from '../engines/ffmpeg/probe';
import { AudioEngineRegistry } from '../engines/engine-registry';
import { AUDIO_LOGGER, CATALOG } from '../tokens';

const PROBE_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_DURATION_S = 600;

/** Longest audio a transcription model accepts (`constraints.max_duration_seconds`). */
export function maxDurationMs(model: ModelDefinition | undefined): number {
  const value = model?.constraints.max_duration_seconds;
  return (typeof value === 'number' && value > 0 ? value : DEFAULT_MAX_DURATION_S) * 1000;
}

@Injectable()
export class TranscriptionService {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly engines: AudioEngineRegistry,
    private readonly payloads: AudioPayloads,
    private readonly billing: BillingSettler,
    @Inject(AUDIO_CONFIG) private readonly config: AudioConfig,
    @Inject(AUDIO_LOGGER) private readonly logger: Logger,
  ) {}

  /** Container and duration, or a 400 saying what is wrong with the file. */
  async probe({ caller, audio, keep }: ProbeAudioRequest, model: ModelDefinition | undefined): Promise<ProbeAudioReply> {
    const bytes = await this.payloads.unpack(audio, keep);
    const probed = await probeAudio(bytes, PROBE_TIMEOUT_MS).catch((err: unknown) => {
      if (!keep) void this.payloads.discard(audio);
      if (err instanceof BadAudioError) throw fileError(err.message);
      throw toDomainError(err, this.logger, caller.requestId);
    });
    const limit = maxDurationMs(model);
    if (model && probed.durationMs > limit) {
      void this.payloads.discard(audio);
      const message = `The audio is ${(probed.durationMs / 1000).toFixed(1)} s long; ${model.id} accepts at most ${limit / 1000} s.`;
      throw fileError(message);
    }
    return probed;
  }

  async transcribe({ caller, params, audio, billing }: TranscribeRequest): Promise<TranscribeReply> {
    try {
      return await this.billing.around(billing, caller.requestId, async (charge, started) => {
        const model = modelOfType(this.catalog, params.model, 'asr');
        const engine = this.engines.transcriptionEngine(model);
        const bytes = await this.payloads.unpack(audio);
        // Measured here again: the service bills only a duration it measured itself.
        const measured = (await probeAudio(bytes, PROBE_TIMEOUT_MS).catch((err: unknown) => this.badAudio(err))).durationMs;
        if (measured > maxDurationMs(model)) throw new DomainError(ErrorCode.Validation, `The audio is longer than ${maxDurationMs(model) / 1000} s.`);
        const result = await engine.transcribe({
          audio: bytes,
          durationMs: measured,
          language: params.language,
          timestamps: params.timestamps,
          task: params.task,
          signal: AbortSignal.timeout(this.config.AUDIO_REQUEST_TIMEOUT_MS),
        });
        charge({ kind: 'asr', audioMs: measured });
        this.logger.info(
          { requestId: caller.requestId, model: model.id, audioMs: measured, words: result.words.length, ms: Date.now() - started },
          'transcription',
        );
        return {
          text: result.text,
          duration: measured / 1000,
          language: result.language,
          ...(params.timestamps ? { timestamps: { word: result.words, segment: result.segments } } : {}),
        };
      });
    } catch (err) {
      throw toDomainError(err, this.logger, caller.requestId);
    }
  }

  private badAudio(err: unknown): never {
    if (err instanceof BadAudioError) throw fileError(err.message);
    throw err;
  }
}

/** A 400 about the uploaded `file` field, in the DetailedError shape. */
function fileError(message: string): DomainError {
  return new DomainError(ErrorCode.Validation, message, { _errors: [], file: { _errors: [message] } });
}
