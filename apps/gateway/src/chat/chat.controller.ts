import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Catalog } from '@svc/catalog';
import { CallerContext, CHAT, ChatCompletion } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { AdmissionService } from '../admission/admission.service';
import { ResponseCost } from '../admission/admission.types';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { CATALOG } from '../models/models.tokens';
import { chatRequestSchema, toChatParams } from './chat-request.dto';
import { chatWorstCase } from './chat-worst-case';
import { PromptBudget } from './prompt-budget';
import { SseStreamer } from './sse-streamer';
import { SvcParametersResolver } from './svc-parameters.resolver';

@Controller('chat')
export class ChatController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streamer: SseStreamer,
    private readonly admission: AdmissionService,
    private readonly svcParameters: SvcParametersResolver,
    private readonly promptBudget: PromptBudget,
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
    const { model, svc, personaBytes } = await this.svcParameters.resolve(input.model, input.svc_parameters, caller.requestId);
    const admission = this.admission.forModel({ caller, request, reply }, model);
    const params = { ...toChatParams(input, model.id), svc_parameters: svc };
    const worstCase = chatWorstCase(params, model, { budget: await this.promptBudget.get(caller.requestId), personaBytes }, this.catalog);
    return admission.run(worstCase, async ({ billing, costOf }) => {
      // The service settles the reservation with exact counts (docs/billing.md).
      if (params.stream) {
        const outcome = await this.streamer.relay({ caller, params, billing }, reply);
        return { result: undefined, usage: outcome.usage };
      }
      const completion = await this.rpc.send(
        CHAT.COMPLETE,
        { caller, params, billing },
        { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS },
      );
      const usage = { promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens };
      const cost = costOf(usage);
      return { result: cost ? { ...completion, cost } : completion, usage };
    });
  }
}
