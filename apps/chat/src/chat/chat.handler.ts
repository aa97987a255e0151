import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CHAT,
  ChatCompletion,
  CompleteChatRequest,
  CountPromptReply,
  CountPromptRequest,
  PromptBudgetReply,
  StreamChatRequest,
  StreamOpenReply,
} from '@svc/contracts';
import { ChatService } from './chat.service';
import { SvcParametersApplier } from './prompt/svc-parameters.applier';

@Controller()
export class ChatHandler {
  constructor(
    private readonly chat: ChatService,
    private readonly svc: SvcParametersApplier,
  ) {}

  @MessagePattern(CHAT.COMPLETE)
  complete(@Payload() request: CompleteChatRequest): Promise<ChatCompletion> {
    return this.chat.complete(request);
  }

  @MessagePattern(CHAT.STREAM)
  stream(@Payload() request: StreamChatRequest): StreamOpenReply {
    return this.chat.openStream(request);
  }

  @MessagePattern(CHAT.COUNT_PROMPT)
  countPrompt(@Payload() request: CountPromptRequest): Promise<CountPromptReply> {
    return this.chat.countPrompt(request);
  }

  @MessagePattern(CHAT.PROMPT_BUDGET)
  promptBudget(): PromptBudgetReply {
    return this.svc.promptBudget();
  }
}
