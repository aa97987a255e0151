import { Inject, Injectable } from '@nestjs/common';
import { contextLengthExceededAs, isContextLengthExceeded } from '@svc/errors';
import { ChatPipeline, ChatPipelineRequest } from '../chat/chat.pipeline';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CompletionsRequestBody } from './completions-request.dto';
import { promptText, toRawCompletionRequest } from './completions-request.mapper';
import { newCompletionId, toTextCompletion } from './completions-response.mapper';
import { completionChunks } from './completions-stream.mapper';
import { TextCompletion } from './completions.types';

/**
 * POST /completions (OpenAI's legacy text completions): the prompt runs as raw text for the model
 * to continue (no chat template) on the chat pipeline (same admission, billing, limits and
 * service); the completion or its chunks become `text_completion` objects.
 */
@Injectable()
export class CompletionsPipeline {
  constructor(
    private readonly chat: ChatPipeline,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The text completion, or undefined when it was streamed (the reply is already sent); a batch line brings its own `reservation`. */
  async run(call: RouteCall, input: CompletionsRequestBody, reservation?: ChatPipelineRequest['reservation']): Promise<TextCompletion | undefined> {
    const request = toRawCompletionRequest(input);
    const prompt = { text: promptText(input), echo: input.echo === true };
    const id = newCompletionId();
    return this.chat
      .run(
        call,
        { ...request, reservation },
        { body: (completion, cost) => toTextCompletion(completion, id, cost, prompt), stream: () => completionChunks(id, this.config.ERROR_STYLE, prompt) },
      )
      .catch((err: unknown) => {
        // The text came as `prompt`: that is the field a completions client expects to be blamed.
        throw isContextLengthExceeded(err) ? contextLengthExceededAs(err, 'prompt') : err;
      });
  }
}
