import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CompleteAudioReply, QueueAudioReply } from '@svc/contracts';
import { Public } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { AudioJobsPipeline } from './audio-jobs.pipeline';
import { completeAudioSchema, queueAudioSchema, quoteAudioSchema, retrieveAudioSchema } from './audio-request.dto';

/** `POST /audio/quote`, `/audio/queue`, `/audio/retrieve`, `/audio/complete` (docs/audio.md). */
@Controller('audio')
export class AudioJobsController {
  constructor(private readonly pipeline: AudioJobsPipeline) {}

  @Public()
  @Post('quote')
  @HttpCode(200)
  quote(@Body() body: unknown): { quote: number } {
    return this.pipeline.quote(parseBody(quoteAudioSchema, body));
  }

  @Post('queue')
  @HttpCode(200)
  queue(@Body() body: unknown, @Call() call: RouteCall): Promise<QueueAudioReply> {
    return this.pipeline.queue(call, parseBody(queueAudioSchema, body));
  }

  @Post('retrieve')
  @HttpCode(200)
  retrieve(@Body() body: unknown, @Call() call: RouteCall): Promise<unknown> {
    return this.pipeline.retrieve(call, parseBody(retrieveAudioSchema, body));
  }

  @Post('complete')
  @HttpCode(200)
  complete(@Body() body: unknown, @Call() call: RouteCall): Promise<CompleteAudioReply> {
    return this.pipeline.complete(call, parseBody(completeAudioSchema, body));
  }
}
