import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Catalog } from '@svc/catalog';
import { CallerContext, CHAT, ChatCompletion } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { AdmissionService } from '../admission/admission.service';
import { estimateChatUsage } from '../admission/usage-estimate';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { BillingRequests, ResponseCost } from '../billing/billing-requests';
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
    private readonly admission: AdmissionService,
    private readonly billing: BillingRequests,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post('completions')
  @HttpCode(200)
  async create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<(ChatCompletion & { cost?: ResponseCost }) | undefined> {
    const input = parseBody(chatRequestSchema, body);
    const model = this.catalog.resolve(input.model, 'text');
    if (!model) throw new DomainError(ErrorCode.ModelNotFound, `Model "${input.model}" does not exist or is not a text model. See GET /api/v1/models?type=text.`);
    setModelHeaders(reply, model);
    const params = toChatParams(input, model.id);
    const worstCase = estimateChatUsage(params, model);
    const admission = await this.admission.admit({ requestId: caller.requestId, key: request.apiKey!, model, worstCase, ip: request.ip });
    admission.applyHeaders(reply);
    // The service settles the reservation with exact counts (docs/billing.md).
    const billing = this.billing.reservationOf(caller.requestId);

    if (params.stream) {
      const outcome = await this.streamer.relay({ caller, params, billing }, reply).catch(async (err: unknown) => {
        await admission.settle(null);
        throw err;
      });
      await admission.settle(outcome.usage);
      return undefined;
    }
    try {
      const completion = await this.rpc.send(
        CHAT.COMPLETE,
        { caller, params, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS },
      );
      const cost = this.billing.costOf(caller.requestId, completion.usage);
      await admission.settle({ promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens });
      return cost ? { ...completion, cost } : completion;
    } catch (err) {
      await admission.settle(null);
      throw err;
    }
  }
}
