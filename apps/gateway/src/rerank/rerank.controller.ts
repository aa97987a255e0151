import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { rerankRequestSchema } from './rerank-request.dto';
import { RerankResponse } from './rerank-response';
import { RerankPipeline } from './rerank.pipeline';

@Controller('rerank')
export class RerankController {
  constructor(private readonly pipeline: RerankPipeline) {}

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @Call() call: RouteCall): Promise<RerankResponse> {
    return this.pipeline.run(call, parseBody(rerankRequestSchema, body));
  }
}
