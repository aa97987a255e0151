import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { BlobStore } from '@svc/blob-store';
import { ModelDefinition } from '@svc/catalog';
import { AUDIO, CallerContext, SpeechParams } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS, RouteCall } from '../admission/admission.service';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { plainBody } from '../image/multipart-body';
import { AUDIO_BLOBS, unpackAudio } from './audio-blobs';
import {
  checkSpokenLanguage,
  formatFor,
  inputTooLong,
  limitOf,
  speechRequestSchema,
  TranscriptFormat,
  transcriptionRequestSchema,
  translationRequestSchema,
  voiceFor,
} from './audio-request.dto';
import { AudioStreamer } from './audio-streamer';
import { formatTranscript } from './transcription-format';
import { TranscriptionRunner } from './transcription-runner';

const CONTENT_TYPES: Record<SpeechParams['response_format'], string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** OpenAI clients repeat `timestamp_granularities[]` (`word` and `segment`): every value counts. */
const GRANULARITY_FIELDS = ['timestamp_granularities[]', 'timestamp_granularities'] as const;

@Controller('audio')
export class AudioController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    private readonly streamer: AudioStreamer,
    @Inject(AUDIO_BLOBS) private readonly blobs: BlobStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly runner: TranscriptionRunner,
  ) {}

  @Post('speech')
  @HttpCode(200)
  async speech(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer | undefined> {
    const input = parseBody(speechRequestSchema, body);
    const model = this.model(input.model, 'tts');
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
    const admission = this.admission.forModel({ caller, request, reply }, model);
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

  @Post('transcriptions')
  @HttpCode(200)
  async transcriptions(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const input = parseBody(transcriptionRequestSchema, await this.multipart(request, body, GRANULARITY_FIELDS));
    const granularities = [input['timestamp_granularities[]'], input.timestamp_granularities].flat().filter((g): g is string => typeof g === 'string');
    return this.transcribe({ caller, request, reply }, input, { task: 'transcribe', granularities, timestamps: input.timestamps });
  }

  /** OpenAI's translations: English text. An English-only recognizer transcribes (docs/audio.md). */
  @Post('translations')
  @HttpCode(200)
  async translations(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const input = parseBody(translationRequestSchema, await this.multipart(request, body));
    return this.transcribe({ caller, request, reply }, input, { task: 'translate', granularities: [], timestamps: false });
  }

  private async multipart(request: AuthenticatedRequest, body: unknown, lists: readonly string[] = []): Promise<unknown> {
    if (!request.isMultipart()) throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the audio as multipart/form-data with a "file" field.');
    return plainBody(body, lists);
  }

  private async transcribe(
    call: RouteCall,
    input: { file: Buffer; model: string; response_format: TranscriptFormat; language?: string },
    options: { task: 'transcribe' | 'translate'; granularities: string[]; timestamps: boolean },
  ): Promise<unknown> {
    const model = this.model(input.model, 'asr');
    if (options.task === 'translate') checkSpokenLanguage(model, input.language);
    const timestamps = options.timestamps || options.granularities.length > 0 || !['json', 'text'].includes(input.response_format);
    const result = await this.runner.transcribe(call, model, input.file, { timestamps, language: input.language, task: options.task });
    const formatted = formatTranscript(result, input.response_format, options);
    if (formatted.contentType) call.reply.header(HEADER.contentType, formatted.contentType);
    return formatted.body;
  }

  private model(requested: string, type: 'tts' | 'asr'): ModelDefinition {
    return this.runner.model(requested, type);
  }
}
