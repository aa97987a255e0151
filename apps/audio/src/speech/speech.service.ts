import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from 'nats';
import { Catalog } from '@svc/catalog';
import { SpeechParams, SpeechReply, SpeechRequest, StreamOpenReply, StreamSpeechRequest } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { NATS_CONNECTION, StreamAbortedError, StreamPublisher } from '@svc/messaging';
import { BillingSettler, openBilledStream } from '@svc/billing-client';
import { toDomainError } from '../audio-errors';
import { AudioPayloads } from '../audio-payloads';
import { modelOfType } from '../audio-models';
import { AUDIO_CONFIG, AudioConfig } from '../config';
import { AudioAbortedError, SpeakRequest, SpeechEngine } from '../engines/engine';
import { AudioEngineRegistry } from '../engines/engine-registry';
import { SPEECH_FORMATS } from '../engines/ffmpeg/audio-formats';
import { AUDIO_LOGGER, CATALOG } from '../tokens';
import { upstreamVoice } from '../voices/voice-cloning';

@Injectable()
export class SpeechService {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly engines: AudioEngineRegistry,
    private readonly payloads: AudioPayloads,
    private readonly billing: BillingSettler,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(AUDIO_CONFIG) private readonly config: AudioConfig,
    @Inject(AUDIO_LOGGER) private readonly logger: Logger,
  ) {}

  async speak({ caller, params, billing }: SpeechRequest): Promise<SpeechReply> {
    try {
      return await this.billing.around(billing, caller.requestId, async (charge, started) => {
        const model = modelOfType(this.catalog, params.model, 'tts');
        const engine = this.engines.speechEngine(model);
        const result = await engine.speak(speakRequest(params, caller.accountId, AbortSignal.timeout(this.config.AUDIO_REQUEST_TIMEOUT_MS)));
        charge({ kind: 'tts', characters: result.characters });
        this.logger.info(
          { requestId: caller.requestId, model: model.id, characters: result.characters, bytes: result.audio.length, ms: Date.now() - started },
          'speech',
        );
        return {
          contentType: SPEECH_FORMATS[params.response_format].contentType,
          audio: await this.payloads.pack(result.audio),
          characters: result.characters,
        };
      });
    } catch (err) {
      throw toDomainError(err, this.logger, caller.requestId);
    }
  }

  /** Validates, answers the open request at once, then streams encoded audio as it is produced. */
  openStream(request: StreamSpeechRequest): StreamOpenReply {
    return openBilledStream(
      this.billing,
      this.nc,
      this.config,
      request,
      () => this.engines.speechEngine(modelOfType(this.catalog, request.params.model, 'tts')),
      (engine, publisher) => this.produce(request, engine, publisher),
    );
  }

  private async produce({ caller, params, billing }: StreamSpeechRequest, engine: SpeechEngine, publisher: StreamPublisher): Promise<void> {
    const started = Date.now();
    const signal = AbortSignal.any([publisher.signal, AbortSignal.timeout(this.config.AUDIO_REQUEST_TIMEOUT_MS)]);
    let bytes = 0;
    try {
      const result = await engine.speak(speakRequest(params, caller.accountId, signal), async (chunk) => {
        bytes += chunk.length;
        await publisher.chunk(chunk.toString('base64'));
      });
      this.billing.settle(billing, caller.requestId, 'completed', { kind: 'tts', characters: result.characters }, Date.now() - started);
      publisher.end({ usage: { prompt_tokens: result.characters, completion_tokens: 0, total_tokens: result.characters }, finishReason: 'stop' });
      this.logger.info({ requestId: caller.requestId, model: params.model, characters: result.characters, bytes, ms: Date.now() - started }, 'speech stream');
    } catch (err) {
      // A stream cut by the client is billed for the whole input: synthesis ran ahead of the reader.
      const cut = err instanceof AudioAbortedError || err instanceof StreamAbortedError || publisher.signal.aborted;
      if (cut && bytes > 0) this.billing.settle(billing, caller.requestId, 'cut', { kind: 'tts', characters: [...params.input].length }, Date.now() - started);
      else this.billing.settle(billing, caller.requestId, 'failed', null);
      if (cut) {
        publisher.close();
        return;
      }
      publisher.error(toDomainError(err, this.logger, caller.requestId).toPayload());
    }
  }
}

/** What an engine is asked to speak, from the request's validated parameters. */
function speakRequest(params: SpeechParams, accountId: string, signal: AbortSignal): SpeakRequest {
  const { input, voice, response_format: format, speed, language, instructions } = params;
  return { input, voice: upstreamVoice(voice, accountId), format, speed, language, instructions, signal };
}
