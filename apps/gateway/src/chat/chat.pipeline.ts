import { Inject, Injectable } from '@nestjs/common';
import { Catalog } from '@svc/catalog';
import { CHAT, ChatCompletion, CountPromptReply, TextCompletionParams } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { AdmissionService } from '../admission/admission.service';
import { AdmissionRequest, ResponseCost } from '../admission/admission.types';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { chatWorstCase, completionCap, completionCapHint, exactChatWorstCase, usesWebContext } from './chat-worst-case';
import { PromptBudget } from './prompt-budget';
import { setRetryCount } from './retry-count';
import { SseStreamer, StreamEncoder } from './sse-streamer';
import { SvcParametersResolver } from './svc-parameters.resolver';
import { SvcParametersInput } from './svc-parameters.schema';

/** Counting a prompt is a tokenizer pass: a chat service that cannot answer in this long leaves the byte bound's refusal. */
const COUNT_TIMEOUT_MS = 2_000;
/** With web search, the count searches as the run will (the chat service gives its search 8 s). */
const COUNT_WITH_SEARCH_TIMEOUT_MS = 10_000;

/** What a text route asks of the chat pipeline, in the chat completion contract. */
export interface ChatPipelineRequest {
  /** The model as the body names it (an id, trait or compatibility name, maybe with a suffix). */
  model: string;
  svc_parameters?: SvcParametersInput;
  /** The chat service's parameters for the resolved model (svc_parameters are added here): a chat request or a raw prompt. */
  params(modelId: string): TextCompletionParams;
  /** A queued run's own reservation (batch lines): held apart from any lease, under an id that replays. */
  reservation?: Pick<AdmissionRequest, 'ownReservation' | 'reservationId'>;
}

/** How a route answers: its body for a completion, and its encoder for a stream. */
export interface ChatAnswer<T> {
  body(completion: ChatCompletion, cost: ResponseCost | undefined): T;
  stream(params: TextCompletionParams): StreamEncoder;
}

/**
 * The one way a text route runs (/chat/completions, /responses, /completions): model and svc_parameters
 * resolved, admission (rate limits, credit) for the worst case, the chat service plain or
 * streamed, settlement with the exact counts. Routes differ only in their contract's mapping.
 */
@Injectable()
export class ChatPipeline {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streamer: SseStreamer,
    private readonly admission: AdmissionService,
    private readonly svcParameters: SvcParametersResolver,
    private readonly promptBudget: PromptBudget,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The route's body, or undefined when the answer was streamed (the reply is already sent). */
  async run<T>(call: RouteCall, request: ChatPipelineRequest, answer: ChatAnswer<T>): Promise<T | undefined> {
    const { caller, reply } = call;
    const { model, svc, personaBytes } = await this.svcParameters.resolve(request.model, request.svc_parameters, caller.requestId);
    const admission = this.admission.forModel(call, model);
    const params = Object.assign(request.params(model.id), { svc_parameters: svc });
    const additions = { budget: await this.promptBudget.get(caller.requestId), personaBytes };
    const worstCase = chatWorstCase(params, model, additions, this.catalog);
    // Asked only when the byte bound does not fit the credit left (docs/billing.md, "Exact at the margin").
    let counted: CountPromptReply | undefined;
    const exactWorstCase = async () => {
      const timeoutMs = usesWebContext(params) ? COUNT_WITH_SEARCH_TIMEOUT_MS : COUNT_TIMEOUT_MS;
      counted = await this.rpc.send(CHAT.COUNT_PROMPT, { caller, params }, { requestId: caller.requestId, timeoutMs });
      return exactChatWorstCase(params, model, counted, additions);
    };
    // The last resort at the margin: the completion capped to what the credit covers (with a header).
    const shrink = {
      cap: completionCap(model, params),
      worstCaseFor: (cap: number) =>
        (counted && exactChatWorstCase({ ...params, max_tokens: cap }, model, counted, additions)) ?? {
          ...worstCase,
          completionTokens: cap * (params.n ?? 1),
        },
    };
    const options = { exactWorstCase, refusalHint: completionCapHint(params, model), shrink, ...request.reservation };
    return admission.run(
      worstCase,
      async ({ billing, costOf, completionCap: capped }) => {
        if (capped !== undefined) params.max_tokens = capped;
        // Counted at the margin with the web context it found: the run carries no more than that.
        const webContextMaxBytes = counted?.webContextBytes;
        // The service settles the reservation with exact counts (docs/billing.md).
        if (params.stream) {
          const outcome = await this.streamer.relay({ caller, params, billing, webContextMaxBytes }, reply, answer.stream(params));
          return { result: undefined, usage: outcome.usage };
        }
        const { upstreamRetries, ...completion } = await this.rpc.send(
          CHAT.COMPLETE,
          { caller, params, billing, webContextMaxBytes },
          { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS, idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS, resendUntaken: true },
        );
        setRetryCount(reply, upstreamRetries);
        const usage = { promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens };
        return { result: answer.body(completion, costOf(usage)), usage };
      },
      options,
    );
  }
}
