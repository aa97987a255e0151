import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog } from '@svc/catalog';
import { AUDIO, SpeechParams } from '@svc/contracts';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { AUDIO_BLOBS, unpackAudio } from './audio-blobs';
import { audioModelOf } from './audio-model';
import { formatFor, inputTooLong, limitOf, SpeechRequestDto, voiceFor } from './audio-request.dto';
import { AudioStreamer } from './audio-streamer';

const CONTENT_TYPES: Record<SpeechParams['response_format'], string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/**
 * `POST /audio/speech` (docs/audio.md): the text within the model's character limit, admitted for
 * its characters, read by the audio service; the audio as one file, or streamed as it is made.
 */
@Injectable()
export class SpeechPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    private readonly streamer: AudioStreamer,
    @Inject(AUDIO_BLOBS) private readonly blobs: BlobStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The audio, or undefined when it was streamed (the reply is already sent). */
  async run(call: RouteCall, input: SpeechRequestDto): Promise<Buffer | undefined> {
    const { caller, reply } = call;
    const model = audioModelOf(this.catalog, input.model, 'tts');
    const limit = limitOf(model, 'prompt_character_limit', 4096);
    const characters = [...input.input].length;
    if (characters > limit) throw inputTooLong('input', characters, limit, model.id);
    const params: SpeechParams = {
      model: model.id,
      input: input.input,
      voice: voiceFor(model, input.voice),
      response_format: formatFor(model, input.response_format),
      speed: input.speed,
      language: input.language,
      instructions: input.instructions,
    };
    const admission = this.admission.forModel(call, model);
    const contentType = CONTENT_TYPES[params.response_format];
    return admission.run({ kind: 'tts', characters }, async ({ billing }) => {
      if (input.streaming || input.stream_format === 'audio') {
        const complete = await this.streamer.relay({ caller, params, billing }, contentType, reply);
        return { result: undefined, usage: { ...NO_TOKENS, cut: !complete } };
      }
      const result = await this.rpc.send(
        AUDIO.SPEECH,
        { caller, params, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS },
      );
      const audio = await unpackAudio(this.blobs, result.audio);
      reply.header(HEADER.contentType, contentType);
      return { result: audio, usage: NO_TOKENS };
    });
  }
}
