import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { contextLengthExceededAs, isContextLengthExceeded } from '@svc/errors';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { ChatPipeline } from '../chat/chat-pipeline';
import { toChatParams } from '../chat/chat-request.dto';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { completionsRequestSchema } from './completions-request.dto';
import { toChatRequest } from './completions-request.mapper';
import { newCompletionId, toTextCompletion } from './completions-response.mapper';
import { completionChunks } from './completions-stream.mapper';
import { TextCompletion } from './completions.types';

/**
 * POST /completions (OpenAI's legacy text completions): the prompt becomes a one-message chat
 * request and runs on the chat pipeline (same admission, billing, limits and service); the
 * completion or its chunks become `text_completion` objects.
 */
@Controller('completions')
export class CompletionsController {
  constructor(
    private readonly pipeline: ChatPipeline,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(200)
  create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TextCompletion | undefined> {
    const input = parseBody(completionsRequestSchema, body);
    const chat = toChatRequest(input);
    const id = newCompletionId();
    return this.pipeline
      .run(
        { caller, request, reply },
        { model: chat.model, svc_parameters: chat.svc_parameters, params: (modelId) => toChatParams(chat, modelId) },
        { body: (completion, cost) => toTextCompletion(completion, id, cost), stream: () => completionChunks(id, this.config.ERROR_STYLE) },
      )
      .catch((err: unknown) => {
        // The text came as `prompt`: that is the field a completions client expects to be blamed.
        throw isContextLengthExceeded(err) ? contextLengthExceededAs(err, 'prompt') : err;
      });
  }
}
