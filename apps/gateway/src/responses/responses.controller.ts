import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { responsesRequestSchema } from './responses-request.dto';
import { ResponsesPipeline } from './responses.pipeline';
import { ResponseObject } from './responses.types';

@Controller('responses')
export class ResponsesController {
  constructor(private readonly pipeline: ResponsesPipeline) {}

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @Call() call: RouteCall): Promise<ResponseObject | undefined> {
    return this.pipeline.run(call, parseBody(responsesRequestSchema, body));
  }
}
