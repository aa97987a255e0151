import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { rerankRequestSchema } from './rerank-request.dto';
import { RerankResponse } from './rerank-response';
import { RerankOrchestrator } from './rerank.orchestrator';

@Controller('rerank')
export class RerankController {
  constructor(private readonly rerank: RerankOrchestrator) {}

  @Post()
  @HttpCode(200)
  create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RerankResponse> {
    return this.rerank.run({ caller, request, reply }, parseBody(rerankRequestSchema, body));
  }
}
