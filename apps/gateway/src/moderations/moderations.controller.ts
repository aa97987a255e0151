import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { moderationsRequestSchema } from './moderations-request.dto';
import { ModerationsResponse } from './moderations-response';
import { ModerationsOrchestrator } from './moderations.orchestrator';

@Controller('moderations')
export class ModerationsController {
  constructor(private readonly moderations: ModerationsOrchestrator) {}

  @Post()
  @HttpCode(200)
  create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ModerationsResponse> {
    return this.moderations.run({ caller, request, reply }, parseBody(moderationsRequestSchema, body));
  }
}
