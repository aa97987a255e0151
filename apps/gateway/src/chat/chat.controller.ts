import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ChatCompletion } from '@svc/contracts';
import { ErrorStyle } from '@svc/errors';
import { ResponseCost } from '../admission/admission.types';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { ChatAnswer, ChatPipeline } from './chat.pipeline';
import { chatRequestSchema, toChatParams } from './chat-request.dto';
import { chatCompletionChunks } from './sse-streamer';

type ChatCompletionBody = ChatCompletion & { cost?: ResponseCost };

/** The chat API's answer: the completion as the service made it (with its cost), or its chunks. */
const chatAnswer = (errorStyle: ErrorStyle): ChatAnswer<ChatCompletionBody> => {
  const chunks = chatCompletionChunks(errorStyle);
  return {
    body: (completion, cost) => (cost ? Object.assign(completion, { cost }) : completion),
    stream: () => chunks,
  };
};

@Controller('chat')
export class ChatController {
  private readonly answer: ChatAnswer<ChatCompletionBody>;

  constructor(
    private readonly pipeline: ChatPipeline,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.answer = chatAnswer(config.ERROR_STYLE);
  }

  @Post('completions')
  @HttpCode(200)
  create(@Body() body: unknown, @Call() call: RouteCall): Promise<ChatCompletionBody | undefined> {
    const input = parseBody(chatRequestSchema, body);
    const chat = { model: input.model, svc_parameters: input.svc_parameters, params: (modelId: string) => toChatParams(input, modelId) };
    return this.pipeline.run(call, chat, this.answer);
  }
}
