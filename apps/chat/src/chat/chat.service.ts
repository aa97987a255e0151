import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from 'nats';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { ChatCompletion, CompleteChatRequest, SettledUsage, StreamChatRequest, StreamOpenReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { BillingSettler, NATS_CONNECTION, promptTokensOnAbort, StreamAbortedError, StreamPublisher } from '@svc/messaging';
import { EngineRegistry } from '../engines/engine-registry';
import { GenerateRequest, GenerateResult, GenerationAbortedError } from '../engines/engine';
import { CHAT_CONFIG, ChatConfig } from '../config';
import { ChunkFactory, newCompletionId, toCompletion, usageOf } from './completion-format';
import { CATALOG, CHAT_LOGGER } from './tokens';

const DEFAULT_MAX_TOKENS = 512;

@Injectable()
export class ChatService {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly engines: EngineRegistry,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
    private readonly billing: BillingSettler,
  ) {}

  async complete({ caller, params, billing }: CompleteChatRequest): Promise<ChatCompletion> {
    const started = Date.now();
    let result: GenerateResult;
    let model: ModelDefinition;
    try {
      model = this.model(params.model);
      result = await this.engines.get(model).generate(this.generateRequest(model, params, new AbortController().signal));
    } catch (err) {
      this.billing.settle(billing, caller.requestId, 'failed', null);
      throw err;
    }
    this.billing.settle(billing, caller.requestId, 'completed', textUsage(result), Date.now() - started);
    this.logger.info({ requestId: caller.requestId, model: model.id, promptTokens: result.promptTokens, completionTokens: result.completionTokens, ms: Date.now() - started }, 'completion');
    return toCompletion(newCompletionId(), model.id, result);
  }

  /** Validates, answers the open request at once, and produces frames in the background. */
  openStream(request: StreamChatRequest): StreamOpenReply {
    let model: ModelDefinition;
    let engine: ReturnType<EngineRegistry['get']>;
    try {
      model = this.model(request.params.model);
      engine = this.engines.get(model);
    } catch (err) {
      this.billing.settle(request.billing, request.caller.requestId, 'failed', null);
      throw err;
    }
    const publisher = new StreamPublisher(this.nc, request.stream, {
      heartbeatMs: this.config.STREAM_HEARTBEAT_MS,
      ackTimeoutMs: this.config.STREAM_ACK_TIMEOUT_MS,
      requestId: request.caller.requestId,
    });
    void this.produce(request, model, engine, publisher);
    return publisher.reply();
  }

  private async produce(request: StreamChatRequest, model: ModelDefinition, engine: ReturnType<EngineRegistry['get']>, publisher: StreamPublisher): Promise<void> {
    const { caller, params, billing } = request;
    const chunks = new ChunkFactory(newCompletionId(), model.id);
    const started = Date.now();
    // Content pieces handed to the gateway: what a cut or failed stream is billed for.
    let pieces = 0;
    let settled = false;
    try {
      await publisher.chunk(chunks.role());
      const result = await engine.generate(this.generateRequest(model, params, publisher.signal), async (text) => {
        await publisher.chunk(chunks.content(text));
        pieces++;
      });
      this.billing.settle(billing, caller.requestId, 'completed', textUsage(result), Date.now() - started);
      settled = true;
      await publisher.chunk(chunks.finish(result.finishReason));
      if (params.stream_options?.include_usage) await publisher.chunk(chunks.usage(usageOf(result)));
      publisher.end({ usage: usageOf(result), finishReason: result.finishReason });
      this.logger.info({ requestId: caller.requestId, model: model.id, promptTokens: result.promptTokens, completionTokens: result.completionTokens, ms: Date.now() - started }, 'stream completed');
    } catch (err) {
      const produced = partialUsage(pieces, promptTokensOnAbort(err));
      if (err instanceof GenerationAbortedError || err instanceof StreamAbortedError || publisher.signal.aborted) {
        if (!settled) this.billing.settle(billing, caller.requestId, 'cut', produced, Date.now() - started);
        this.logger.info({ requestId: caller.requestId, model: model.id, reason: String(publisher.signal.reason ?? 'aborted'), ms: Date.now() - started }, 'stream cancelled');
        publisher.close();
        return;
      }
      if (!settled) this.billing.settle(billing, caller.requestId, 'failed', produced, Date.now() - started);
      const error = err instanceof DomainError ? err : new DomainError(ErrorCode.Internal, 'Generation failed.');
      if (!(err instanceof DomainError)) this.logger.error({ requestId: caller.requestId, model: model.id, err: err instanceof Error ? err.message : String(err) }, 'stream failed');
      publisher.error(error.toPayload());
    }
  }

  private model(id: string): ModelDefinition {
    const model = this.catalog.resolve(id, 'text');
    if (!model) throw new DomainError(ErrorCode.ModelNotFound, `Model ${id} does not exist or is not a text model.`);
    return model;
  }

  private generateRequest(model: ModelDefinition, params: CompleteChatRequest['params'], signal: AbortSignal): GenerateRequest {
    const cap = model.maxCompletionTokens ?? DEFAULT_MAX_TOKENS;
    return {
      messages: params.messages,
      maxTokens: Math.min(params.max_tokens ?? cap, cap),
      temperature: params.temperature,
      topP: params.top_p,
      stop: params.stop,
      seed: params.seed,
      signal,
    };
  }
}

const textUsage = (result: GenerateResult): SettledUsage => ({ kind: 'text', promptTokens: result.promptTokens, completionTokens: result.completionTokens });

/** A stream that ended early is billed for the pieces generated; nothing when nothing was produced. */
function partialUsage(pieces: number, promptTokens: number | null): SettledUsage | null {
  if (pieces === 0 && promptTokens === null) return null;
  return { kind: 'text', promptTokens, completionTokens: pieces };
}
