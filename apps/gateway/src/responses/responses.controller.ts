import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { contextLengthExceededAs, isContextLengthExceeded } from '@svc/errors';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { ChatPipeline } from '../chat/chat-pipeline';
import { toChatParams } from '../chat/chat-request.dto';
import { parseBody } from '../http/parse-body';
import { responsesRequestSchema } from './responses-request.dto';
import { toChatRequest } from './responses-request.mapper';
import { newId, toResponse } from './responses-response.mapper';
import { ResponsesStreamMapper, responsesStreamEncoder } from './responses-stream.mapper';
import { ResponseObject } from './responses.types';

/**
 * POST /responses (OpenAI's Responses API, stateless): the request becomes a chat completion
 * request and runs on the chat pipeline (same admission, billing, limits and service); the
 * completion or its chunks become the response or its events.
 */
@Controller('responses')
export class ResponsesController {
  constructor(private readonly pipeline: ChatPipeline) {}

  @Post()
  @HttpCode(200)
  create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResponseObject | undefined> {
    const input = parseBody(responsesRequestSchema, body);
    const chat = toChatRequest(input);
    const id = newId('resp');
    return this.pipeline
      .run(
        { caller, request, reply },
        { model: chat.model, svc_parameters: chat.svc_parameters, params: (modelId) => toChatParams(chat, modelId) },
        {
          body: (completion, cost) => toResponse(completion, input, id, cost),
          stream: (params) => responsesStreamEncoder(new ResponsesStreamMapper(input, { id, createdAt: Math.floor(Date.now() / 1000), model: params.model })),
        },
      )
      .catch((err: unknown) => {
        // The conversation came as `input`: that is the field OpenAI's clients expect to be blamed.
        throw isContextLengthExceeded(err) ? contextLengthExceededAs(err, 'input') : err;
      });
  }
}
