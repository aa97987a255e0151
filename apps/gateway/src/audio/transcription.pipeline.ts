import { Inject, Injectable } from '@nestjs/common';
import { BlobStore } from '@svc/blob-store';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { AUDIO, TranscribeReply, TranscriptionParams } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { OutboundFetcher } from '@svc/outbound';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { AUDIO_BLOBS, packUpload } from './audio-blobs';
import { audioModelOf } from './audio-model';
import { checkSpokenLanguage, limitOf, TranscriptFormat, TranscriptionRequestDto, TranslationRequestDto } from './audio-request.dto';
import { formatTranscript } from './transcription-format';
import { VideoTranscriptionRequestDto } from './video-transcription.dto';

export const MEDIA_URL_FETCHER = Symbol('MEDIA_URL_FETCHER');
export type MediaUrlFetcher = Pick<OutboundFetcher, 'fetch'>;

const DEFAULT_MAX_FILE_BYTES = 25 * 1024 * 1024;

const urlError = (message: string): DomainError => DomainError.validation([{ path: ['url'], message }]);

/**
 * Speech to text (docs/audio.md): `POST /audio/transcriptions`, `/audio/translations` (an upload)
 * and `POST /video/transcriptions` (a video fetched from its URL). The audio service measures the
 * duration and refuses what is not audio before anything is reserved, then admission prices the
 * seconds and the audio service transcribes.
 */
@Injectable()
export class TranscriptionPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(AUDIO_BLOBS) private readonly blobs: BlobStore,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(MEDIA_URL_FETCHER) private readonly fetcher: MediaUrlFetcher,
  ) {}

  transcribe(call: RouteCall, input: TranscriptionRequestDto): Promise<unknown> {
    const granularities = [input['timestamp_granularities[]'], input.timestamp_granularities].flat().filter((g): g is string => typeof g === 'string');
    return this.upload(call, input, { task: 'transcribe', granularities, timestamps: input.timestamps });
  }

  /** OpenAI's translations: English text. An English-only recognizer transcribes (docs/audio.md). */
  translate(call: RouteCall, input: TranslationRequestDto): Promise<unknown> {
    return this.upload(call, input, { task: 'translate', granularities: [], timestamps: false });
  }

  /**
   * The transcript of a video at a URL (docs/audio.md, "Video transcription"): the file is fetched
   * through the SSRF guard (`@svc/outbound`, at most the model's `max_file_bytes`), then transcribed
   * like an upload to `/audio/transcriptions` and billed per second of its audio. A web page (a
   * YouTube watch page) is not a media file: it is refused with a 400 naming `url`, unbilled.
   */
  async transcribeVideo(call: RouteCall, input: VideoTranscriptionRequestDto): Promise<unknown> {
    const model = audioModelOf(this.catalog, input.model, 'asr');
    const file = await this.download(input.url, this.maxFileBytes(model));
    const result = await this.run(call, model, file, { timestamps: false, language: input.language, task: 'transcribe' });
    if (input.response_format === 'text') {
      call.reply.header(HEADER.contentType, 'text/plain; charset=utf-8');
      return result.text;
    }
    return { transcript: result.text, lang: result.language };
  }

  private async upload(
    call: RouteCall,
    input: { file: Buffer; model: string; response_format: TranscriptFormat; language?: string },
    options: { task: 'transcribe' | 'translate'; granularities: string[]; timestamps: boolean },
  ): Promise<unknown> {
    const model = audioModelOf(this.catalog, input.model, 'asr');
    if (options.task === 'translate') checkSpokenLanguage(model, input.language);
    const timestamps = options.timestamps || options.granularities.length > 0 || !['json', 'text'].includes(input.response_format);
    const result = await this.run(call, model, input.file, { timestamps, language: input.language, task: options.task });
    const formatted = formatTranscript(result, input.response_format, options);
    if (formatted.contentType) call.reply.header(HEADER.contentType, formatted.contentType);
    return formatted.body;
  }

  /** The largest media file `model` takes, in bytes. */
  private maxFileBytes(model: ModelDefinition): number {
    return limitOf(model, 'max_file_bytes', DEFAULT_MAX_FILE_BYTES);
  }

  private async run(call: RouteCall, model: ModelDefinition, file: Buffer, params: Omit<TranscriptionParams, 'model'>): Promise<TranscribeReply> {
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

  private async download(url: string, maxBytes: number): Promise<Buffer> {
    let res;
    try {
      res = await this.fetcher.fetch(url, { limits: { maxBytes } });
    } catch (err) {
      if (err instanceof DomainError && err.code === ErrorCode.Validation) throw urlError(`could not be fetched: ${err.message}`);
      throw err;
    }
    if (res.status !== 200) throw urlError(`could not be fetched: the server answered HTTP ${res.status}`);
    if (res.mediaType.startsWith('text/') || res.mediaType.includes('html') || res.mediaType.includes('json'))
      throw urlError(
        `answered ${res.mediaType}, not a media file: give the URL of the video or audio file itself (web pages, such as a YouTube watch page, are not fetched)`,
      );
    if (res.body.length === 0) throw urlError('answered an empty file');
    return res.body;
  }
}
