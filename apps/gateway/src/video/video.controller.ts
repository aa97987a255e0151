import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CompleteVideoReply, QueueVideoReply } from '@svc/contracts';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { completeVideoSchema, queueVideoSchema, quoteVideoSchema, retrieveVideoSchema } from './video-request.dto';
import { VideoPipeline } from './video.pipeline';

/** `POST /video/quote`, `/queue`, `/retrieve`, `/complete` (docs/video.md): the rules are VideoPipeline's. */
@Controller('video')
export class VideoController {
  constructor(private readonly pipeline: VideoPipeline) {}

  @Post('quote')
  @HttpCode(200)
  quote(@Body() body: unknown, @Call() call: RouteCall): Promise<{ quote: number }> {
    return this.pipeline.quote(call, parseBody(quoteVideoSchema, body));
  }

  @Post('queue')
  @HttpCode(200)
  queue(@Body() body: unknown, @Call() call: RouteCall): Promise<QueueVideoReply & { download_url?: string }> {
    return this.pipeline.queue(call, parseBody(queueVideoSchema, body));
  }

  @Post('retrieve')
  @HttpCode(200)
  retrieve(@Body() body: unknown, @Call() call: RouteCall): Promise<unknown> {
    return this.pipeline.retrieve(call, parseBody(retrieveVideoSchema, body));
  }

  @Post('complete')
  @HttpCode(200)
  complete(@Body() body: unknown, @Call() call: RouteCall): Promise<CompleteVideoReply> {
    return this.pipeline.complete(call, parseBody(completeVideoSchema, body));
  }
}
