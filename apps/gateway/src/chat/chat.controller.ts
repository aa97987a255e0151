import { Body, Controller, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Catalog } from '@svc/catalog';
import { CallerContext, CHAT, ChatCompletion } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { Caller } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { setModelHeaders } from '../models/model-headers';
import { CATALOG } from '../models/models.tokens';
import { chatRequestSchema, toChatParams } from './chat-request.dto';
import { SseStreamer } from './sse-streamer';

@Controller('chat')
export class ChatController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streamer: SseStreamer,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post('completions')
  @HttpCode(200)
  async create(@Body() body: unknown, @Caller() caller: CallerContext, @Res({ passthrough: true }) reply: FastifyReply): Promise<ChatCompletion | undefined> {
    const request = parseBody(chatRequestSchema, body);
    const model = this.catalog.resolve(request.model, 'text');
    if (!model) throw new DomainError(ErrorCode.ModelNotFound, `Model "${request.model}" does not exist or is not a text model. See GET /api/v1/models?type=text.`);
    setModelHeaders(reply, model);
    const params = toChatParams(request, model.id);
    if (params.stream) {
      await this.streamer.relay({ caller, params }, reply);
      return undefined;
    }
    return this.rpc.send(CHAT.COMPLETE, { caller, params }, { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS });
  }
}
