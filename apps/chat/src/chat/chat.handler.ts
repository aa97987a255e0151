import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CHAT, ChatCompletion, CompleteChatRequest, StreamChatRequest, StreamOpenReply } from '@svc/contracts';
import { ChatService } from './chat.service';

@Controller()
export class ChatHandler {
  constructor(private readonly chat: ChatService) {}

  @MessagePattern(CHAT.COMPLETE)
  complete(@Payload() request: CompleteChatRequest): Promise<ChatCompletion> {
    return this.chat.complete(request);
  }

  @MessagePattern(CHAT.STREAM)
  stream(@Payload() request: StreamChatRequest): StreamOpenReply {
    return this.chat.openStream(request);
  }
}
