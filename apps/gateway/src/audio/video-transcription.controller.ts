import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { OutboundFetcher } from '@svc/outbound';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { TranscriptionRunner } from './transcription-runner';
import { videoTranscriptionRequestSchema } from './video-transcription.dto';

export const MEDIA_URL_FETCHER = Symbol('MEDIA_URL_FETCHER');
export type MediaUrlFetcher = Pick<OutboundFetcher, 'fetch'>;

const urlError = (message: string): DomainError => DomainError.validation([{ path: ['url'], message }]);

/**
 * The transcript of a video at a URL (docs/audio.md, "Video transcription"): the file is fetched
 * through the SSRF guard (`@svc/outbound`, at most the model's `max_file_bytes`), then transcribed
 * like an upload to `/audio/transcriptions` and billed per second of its audio. A web page (a
 * YouTube watch page) is not a media file: it is refused with a 400 naming `url`, unbilled.
 */
@Controller('video')
export class VideoTranscriptionController {
  constructor(
    private readonly runner: TranscriptionRunner,
    @Inject(MEDIA_URL_FETCHER) private readonly fetcher: MediaUrlFetcher,
  ) {}

  @Post('transcriptions')
  @HttpCode(200)
  async transcriptions(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const input = parseBody(videoTranscriptionRequestSchema, body);
    const model = this.runner.model(input.model, 'asr');
    const file = await this.download(input.url, this.runner.maxFileBytes(model));
    const result = await this.runner.transcribe({ caller, request, reply }, model, file, { timestamps: false, language: input.language, task: 'transcribe' });
    if (input.response_format === 'text') {
      reply.header(HEADER.contentType, 'text/plain; charset=utf-8');
      return result.text;
    }
    return { transcript: result.text, lang: result.language };
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
