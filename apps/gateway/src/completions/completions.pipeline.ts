import { Inject, Injectable } from '@nestjs/common';
import { contextLengthExceededAs, isContextLengthExceeded } from '@svc/errors';
import { ChatPipeline, ChatPipelineRequest } from '../chat/chat.pipeline';
import { toChatParams } from '../chat/chat-request.dto';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CompletionsRequestBody } from './completions-request.dto';
import { toChatRequest } from './completions-request.mapper';
import { newCompletionId, toTextCompletion } from './completions-response.mapper';
import { completionChunks } from './completions-stream.mapper';
import { TextCompletion } from './completions.types';

/**
 * POST /completions (OpenAI's legacy text completions): the prompt becomes a one-message chat
 * request and runs on the chat pipeline (same admission, billing, limits and service); the
 * completion or its chunks become `text_completion` objects.
 */
@Injectable()
export class CompletionsPipeline {
  constructor(
    private readonly chat: ChatPipeline,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The text completion, or undefined when it was streamed (the reply is already sent); a batch line brings its own `reservation`. */
  run(call: RouteCall, input: CompletionsRequestBody, reservation?: ChatPipelineRequest['reservation']): Promise<TextCompletion | undefined> {
    const chat = toChatRequest(input);
    const id = newCompletionId();
    return this.chat
      .run(
        call,
        { model: chat.model, svc_parameters: chat.svc_parameters, params: (modelId) => toChatParams(chat, modelId), reservation },
        { body: (completion, cost) => toTextCompletion(completion, id, cost), stream: () => completionChunks(id, this.config.ERROR_STYLE) },
      )
      .catch((err: unknown) => {
        // The text came as `prompt`: that is the field a completions client expects to be blamed.
        throw isContextLengthExceeded(err) ? contextLengthExceededAs(err, 'prompt') : err;
      });
  }
}
