import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { DomainError, ErrorCode } from '@svc/errors';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { plainBody } from '../image/multipart-body';
import { speechRequestSchema, transcriptionRequestSchema, translationRequestSchema } from './audio-request.dto';
import { SpeechPipeline } from './speech.pipeline';
import { TranscriptionPipeline } from './transcription.pipeline';

/** OpenAI clients repeat `timestamp_granularities[]` (`word` and `segment`): every value counts. */
const GRANULARITY_FIELDS = ['timestamp_granularities[]', 'timestamp_granularities'] as const;

/** `POST /audio/speech`, `/audio/transcriptions`, `/audio/translations` (docs/audio.md). */
@Controller('audio')
export class AudioController {
  constructor(
    private readonly speechPipeline: SpeechPipeline,
    private readonly transcription: TranscriptionPipeline,
  ) {}

  @Post('speech')
  @HttpCode(200)
  speech(@Body() body: unknown, @Call() call: RouteCall): Promise<Buffer | undefined> {
    return this.speechPipeline.run(call, parseBody(speechRequestSchema, body));
  }

  @Post('transcriptions')
  @HttpCode(200)
  async transcriptions(@Body() body: unknown, @Call() call: RouteCall): Promise<unknown> {
    return this.transcription.transcribe(call, parseBody(transcriptionRequestSchema, await multipart(call, body, GRANULARITY_FIELDS)));
  }

  @Post('translations')
  @HttpCode(200)
  async translations(@Body() body: unknown, @Call() call: RouteCall): Promise<unknown> {
    return this.transcription.translate(call, parseBody(translationRequestSchema, await multipart(call, body)));
  }
}

async function multipart({ request }: RouteCall, body: unknown, lists: readonly string[] = []): Promise<unknown> {
  if (!request.isMultipart()) throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the audio as multipart/form-data with a "file" field.');
  return plainBody(body, lists);
}
