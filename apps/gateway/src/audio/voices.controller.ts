import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CloneVoiceReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { plainBody } from '../image/multipart-body';
import { cloneVoiceSchema } from './voices.dto';
import { VoicesPipeline } from './voices.pipeline';

@Controller('audio')
export class VoicesController {
  constructor(private readonly pipeline: VoicesPipeline) {}

  @Post('voices')
  @HttpCode(200)
  async clone(@Body() body: unknown, @Call() call: RouteCall): Promise<CloneVoiceReply> {
    if (!call.request.isMultipart()) throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the voice sample as multipart/form-data with a "file" field.');
    return this.pipeline.clone(call, parseBody(cloneVoiceSchema, await plainBody(body)));
  }
}
