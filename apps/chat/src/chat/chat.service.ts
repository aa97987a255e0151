import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from 'nats';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { ChatCompletion, CompleteChatRequest, StreamChatRequest, StreamOpenReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { NATS_CONNECTION, StreamAbortedError, StreamPublisher } from '@svc/messaging';
import { EngineRegistry } from '../engines/engine-registry';
import { GenerateRequest, GenerationAbortedError } from '../engines/engine';
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
  ) {}

  async complete({ caller, params }: CompleteChatRequest): Promise<ChatCompletion> {
    const model = this.model(params.model);
    const started = Date.now();
    const result = await this.engines.get(model).generate(this.generateRequest(model, params, new AbortController().signal));
    this.logger.info({ requestId: caller.requestId, model: model.id, promptTokens: result.promptTokens, completionTokens: result.completionTokens, ms: Date.now() - started }, 'completion');
    return toCompletion(newCompletionId(), model.id, result);
  }

  /** Validates, answers the open request at once, and produces frames in the background. */
  openStream(request: StreamChatRequest): StreamOpenReply {
    const model = this.model(request.params.model);
    const engine = this.engines.get(model);
    const publisher = new StreamPublisher(this.nc, request.stream, {
      heartbeatMs: this.config.STREAM_HEARTBEAT_MS,
      ackTimeoutMs: this.config.STREAM_ACK_TIMEOUT_MS,
      requestId: request.caller.requestId,
    });
    void this.produce(request, model, engine, publisher);
    return publisher.reply();
  }

  private async produce(request: StreamChatRequest, model: ModelDefinition, engine: ReturnType<EngineRegistry['get']>, publisher: StreamPublisher): Promise<void> {
    const { caller, params } = request;
    const chunks = new ChunkFactory(newCompletionId(), model.id);
    const started = Date.now();
    try {
      await publisher.chunk(chunks.role());
      const result = await engine.generate(this.generateRequest(model, params, publisher.signal), (text) => publisher.chunk(chunks.content(text)));
      await publisher.chunk(chunks.finish(result.finishReason));
      if (params.stream_options?.include_usage) await publisher.chunk(chunks.usage(usageOf(result)));
      publisher.end({ usage: usageOf(result), finishReason: result.finishReason });
      this.logger.info({ requestId: caller.requestId, model: model.id, promptTokens: result.promptTokens, completionTokens: result.completionTokens, ms: Date.now() - started }, 'stream completed');
    } catch (err) {
      if (err instanceof GenerationAbortedError || err instanceof StreamAbortedError || publisher.signal.aborted) {
        this.logger.info({ requestId: caller.requestId, model: model.id, reason: String(publisher.signal.reason ?? 'aborted'), ms: Date.now() - started }, 'stream cancelled');
        publisher.close();
        return;
      }
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
