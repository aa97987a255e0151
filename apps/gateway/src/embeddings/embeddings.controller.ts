import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { EmbeddingsResponse } from './embeddings-response';
import { EmbeddingsRoute } from './embeddings-route';

@Controller('embeddings')
export class EmbeddingsController {
  constructor(private readonly route: EmbeddingsRoute) {}

  @Post()
  @HttpCode(200)
  create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EmbeddingsResponse> {
    return this.route.answer({ caller, request, reply }, body);
  }
}
