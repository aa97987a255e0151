import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext, ChatCompletion } from '@svc/contracts';
import { ResponseCost } from '../admission/admission.types';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { ChatAnswer, ChatPipeline } from './chat-pipeline';
import { chatRequestSchema, toChatParams } from './chat-request.dto';
import { chatCompletionChunks } from './sse-streamer';

type ChatCompletionBody = ChatCompletion & { cost?: ResponseCost };

/** The chat API's answer: the completion as the service made it (with its cost), or its chunks. */
const chatAnswer: ChatAnswer<ChatCompletionBody> = {
  body: (completion, cost) => (cost ? { ...completion, cost } : completion),
  stream: () => chatCompletionChunks,
};

@Controller('chat')
export class ChatController {
  constructor(private readonly pipeline: ChatPipeline) {}

  @Post('completions')
  @HttpCode(200)
  create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ChatCompletionBody | undefined> {
    const input = parseBody(chatRequestSchema, body);
    const chat = { model: input.model, svc_parameters: input.svc_parameters, params: (modelId: string) => toChatParams(input, modelId) };
    return this.pipeline.run({ caller, request, reply }, chat, chatAnswer);
  }
}
