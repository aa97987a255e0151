import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { TranscriptionPipeline } from './transcription.pipeline';
import { videoTranscriptionRequestSchema } from './video-transcription.dto';

/** `POST /video/transcriptions`: the transcript of a video at a URL (TranscriptionPipeline.transcribeVideo). */
@Controller('video')
export class VideoTranscriptionController {
  constructor(private readonly pipeline: TranscriptionPipeline) {}

  @Post('transcriptions')
  @HttpCode(200)
  transcriptions(@Body() body: unknown, @Call() call: RouteCall): Promise<unknown> {
    return this.pipeline.transcribeVideo(call, parseBody(videoTranscriptionRequestSchema, body));
  }
}
