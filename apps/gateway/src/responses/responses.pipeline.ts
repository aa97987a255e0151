import { Injectable } from '@nestjs/common';
import { contextLengthExceededAs, isContextLengthExceeded } from '@svc/errors';
import { ChatPipeline, ChatPipelineRequest } from '../chat/chat.pipeline';
import { toChatParams } from '../chat/chat-request.dto';
import { RouteCall } from '../http/route-call';
import { ResponsesRequestBody } from './responses-request.dto';
import { toChatRequest } from './responses-request.mapper';
import { newId, toResponse } from './responses-response.mapper';
import { ResponsesStreamMapper, responsesStreamEncoder } from './responses-stream.mapper';
import { ResponseObject } from './responses.types';

/**
 * POST /responses (OpenAI's Responses API, stateless): the request becomes a chat completion
 * request and runs on the chat pipeline (same admission, billing, limits and service); the
 * completion or its chunks become the response or its events.
 */
@Injectable()
export class ResponsesPipeline {
  constructor(private readonly chat: ChatPipeline) {}

  /** The response, or undefined when it was streamed as events (the reply is already sent); a batch line brings its own `reservation`. */
  run(call: RouteCall, input: ResponsesRequestBody, reservation?: ChatPipelineRequest['reservation']): Promise<ResponseObject | undefined> {
    const chat = toChatRequest(input);
    const id = newId('resp');
    return this.chat
      .run(
        call,
        { model: chat.model, svc_parameters: chat.svc_parameters, params: (modelId) => toChatParams(chat, modelId), reservation },
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
