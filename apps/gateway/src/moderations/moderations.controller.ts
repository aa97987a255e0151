import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { moderationsRequestSchema } from './moderations-request.dto';
import { ModerationsResponse } from './moderations-response';
import { ModerationsPipeline } from './moderations.pipeline';

@Controller('moderations')
export class ModerationsController {
  constructor(private readonly pipeline: ModerationsPipeline) {}

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @Call() call: RouteCall): Promise<ModerationsResponse> {
    return this.pipeline.run(call, parseBody(moderationsRequestSchema, body));
  }
}
