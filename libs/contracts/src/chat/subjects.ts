import { ChatBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { StreamOpenReply, StreamOpenRequest } from '../stream/frames';
import { ChatCompletionParams } from './chat-request';
import { ChatCompletion } from './chat-response';

export const CHAT = {
  COMPLETE: 'chat.cmd.complete.v1',
  /** Opens a token stream; frames follow on the caller's inbox (docs/streaming-protocol.md). */
  STREAM: 'chat.stream.complete.v1',
} as const;

export interface CompleteChatRequest {
  caller: CallerContext;
  params: ChatCompletionParams;
  /** Present when the gateway reserved credit: the chat service settles it with exact counts. */
  billing?: ChatBilling;
}
export type CompleteChatReply = ChatCompletion;

export interface StreamChatRequest extends CompleteChatRequest {
  stream: StreamOpenRequest;
}

export interface ChatRpc {
  [CHAT.COMPLETE]: { req: CompleteChatRequest; res: CompleteChatReply };
  [CHAT.STREAM]: { req: StreamChatRequest; res: StreamOpenReply };
}
