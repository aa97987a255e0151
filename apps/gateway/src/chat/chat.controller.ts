import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Catalog } from '@svc/catalog';
import { CallerContext, CHAT, ChatCompletion, ChatCompletionParams } from '@svc/contracts';
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
import { SvcParametersResolver } from './svc-parameters.resolver';

@Controller('chat')
export class ChatController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streamer: SseStreamer,
    private readonly admission: AdmissionService,
    private readonly billing: BillingRequests,
    private readonly svcParameters: SvcParametersResolver,
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
  ): Promise<(ChatCompletion & { cost?: ResponseCost }) | OpenAiErrorBody | undefined> {
    try {
      return await this.handle(body, caller, request, reply);
    } catch (err) {
      return openAiShaped(err, reply);
    }
  }

  private async handle(
    body: unknown,
    caller: CallerContext,
    request: AuthenticatedRequest,
    reply: FastifyReply,
  ): Promise<(ChatCompletion & { cost?: ResponseCost }) | undefined> {
    const input = parseBody(chatRequestSchema, body);
    const { model, svc } = await this.svcParameters.resolve(input.model, input.svc_parameters, caller.requestId);
    setModelHeaders(reply, model);
    const params = { ...toChatParams(input, model.id), svc_parameters: svc };
    const worstCase = withRequestFeatures(estimateChatUsage(params, model), params);
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

/** OpenAI's error object, used only where OpenAI clients branch on `error.code` (docs/chat.md). */
interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/**
 * A prompt over the model's context answers in OpenAI's `context_length_exceeded` shape; a 429
 * from a model server gets `retry-after`. Everything else goes to the usual error filter.
 */
function openAiShaped(err: unknown, reply: FastifyReply): OpenAiErrorBody {
  if (!(err instanceof DomainError) || !err.details) throw err;
  const field = (name: string) => {
    const value = err.details?.[name];
    return Array.isArray(value) ? value[0] : undefined;
  };
  const retryAfter = field('retry_after_seconds');
  if (err.code === ErrorCode.RateLimited && retryAfter !== undefined && !reply.sent) reply.header('retry-after', retryAfter);
  if (err.code !== ErrorCode.Validation || field('code') !== 'context_length_exceeded' || reply.sent) throw err;
  reply.status(400);
  return { error: { message: err.message, type: field('type') ?? 'invalid_request_error', param: field('param') ?? 'messages', code: 'context_length_exceeded' } };
}

/**
 * The admission estimate widened for request features: `n` choices multiply the completion, and
 * tool definitions are put into the prompt (by the embedded engine) or sent upstream.
 */
function withRequestFeatures(estimate: ReturnType<typeof estimateChatUsage>, params: ChatCompletionParams): ReturnType<typeof estimateChatUsage> {
  const toolBytes = params.tools?.length ? Buffer.byteLength(JSON.stringify(params.tools)) + 256 : 0;
  const svc = params.svc_parameters;
  // Web augmentation (docs/retrieval.md): at most one search and 5 scraped pages per request.
  const web = { ...(svc && svc.enable_web_search !== 'off' ? { webSearches: 1 } : {}), ...(svc?.enable_web_scraping ? { webScrapes: 5 } : {}) };
  return { ...estimate, ...web, promptTokens: estimate.promptTokens + toolBytes, completionTokens: estimate.completionTokens * (params.n ?? 1) };
}
