import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from 'nats';
import { Catalog, ModelDefinition } from '@svc/catalog';
import {
  ChatCompletion,
  CompleteChatRequest,
  CountPromptReply,
  CountPromptRequest,
  isRawCompletion,
  RawCompletionParams,
  SettledUsage,
  StreamChatRequest,
  StreamOpenReply,
  TextCompletionParams,
  withUpstreamRetries,
} from '@svc/contracts';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { NATS_CONNECTION, StreamAbortedError, StreamPublisher } from '@svc/messaging';
import { BillingSettler, openBilledStream, promptTokensOnAbort } from '@svc/billing-client';
import { EngineRegistry } from '../engines/engine-registry';
import { GenerateResult, GenerationAbortedError, TextEngine } from '../engines/engine';
import { CHAT_CONFIG, ChatConfig } from '../config';
import { ChunkFactory, combineResults, newCompletionId, toCompletion, usageOf } from './completion-format';
import { Candidate, generateChoices } from './request/choices';
import { toGenerateRequest } from './request/generate-request';
import { promptEvaluations } from './request/run-generation';
import { planToolUse } from './request/tool-calls';
import { SvcParametersApplier } from './prompt/svc-parameters.applier';
import { AugmentedChat, ChatAugmentation, wantsAugmentation } from './augmentation/chat-augmentation';
import { chainFilters } from './augmentation/filter-chain';
import { CATALOG, CHAT_LOGGER } from './tokens';

@Injectable()
export class ChatService {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly engines: EngineRegistry,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
    private readonly billing: BillingSettler,
    private readonly svc: SvcParametersApplier,
    private readonly augmentation: ChatAugmentation,
  ) {}

  async complete({ caller, params, billing, webContextMaxBytes }: CompleteChatRequest): Promise<ChatCompletion> {
    return this.billing.around(billing, caller.requestId, async (charge, started) => {
      let model = this.model(params.model);
      const signal = new AbortController().signal;
      const web = await this.augment(model, params, signal, webContextMaxBytes);
      let retries = 0;
      const choices = await generateChoices(this.candidates(model, params), preparedParams(params, web), signal, { retry: () => void retries++ });
      model = choices.model;
      const results = choices.results.map((r) =>
        Object.assign({}, r, { text: r.toolCalls ? r.text : web.rewriteCitations(this.svc.filterText(params, r.text)) }),
      );
      const result = combineResults(results);
      charge(Object.assign(textUsage(result), web.billable()));
      this.logger.info(
        {
          requestId: caller.requestId,
          model: model.id,
          promptTokens: result.promptTokens,
          completionTokens: result.completionTokens,
          ...web.billable(),
          ms: Date.now() - started,
        },
        'completion',
      );
      const completion = toCompletion(newCompletionId(), model.id, results);
      const documents = web.documentsToolCall();
      if (documents) for (const choice of completion.choices) choice.message.tool_calls = [documents, ...(choice.message.tool_calls ?? [])];
      return Object.assign(completion, { svc_parameters: web.echo() }, withUpstreamRetries(retries));
    });
  }

  /** Validates, answers the open request at once, and produces frames in the background. */
  openStream(request: StreamChatRequest): StreamOpenReply {
    const validate = () => {
      const model = this.model(request.params.model);
      const candidates = this.candidates(model, request.params);
      // Validated now, so a bad request is an HTTP 400 rather than an error event.
      toGenerateRequest(model, request.params, UNUSED_SIGNAL);
      this.augmentation.assertAvailable(this.svc.parametersOf(request.params));
      // Without fallbacks an unavailable model fails the request now (HTTP 503), with them when reached.
      const primary = candidates.length > 1 ? undefined : this.engines.get(model);
      return { model, engine: primary ? () => primary : candidates[0].engine };
    };
    return openBilledStream(this.billing, this.nc, this.config, request, validate, ({ model, engine }, publisher) =>
      this.produce(request, model, engine, publisher),
    );
  }

  /** A stream's production, in its steps: augment the prompt, stream the choices, finish; or end it cut or failed. */
  private async produce(request: StreamChatRequest, model: ModelDefinition, engine: () => TextEngine, publisher: StreamPublisher): Promise<void> {
    const completionId = newCompletionId();
    const state: StreamState = { completionId, chunks: new ChunkFactory(completionId, model.id), started: Date.now(), pieces: 0, settled: false };
    try {
      state.web = await this.augment(model, request.params, publisher.signal, request.webContextMaxBytes);
      const results = await this.streamChoices(request, model, engine, publisher, state, state.web);
      await this.finishStream(request, model, publisher, state, state.web, results);
    } catch (err) {
      this.endStreamEarly(request, model, publisher, state, err);
    }
  }

  /**
   * The prompt as the model will see it: svc parameters applied, web context added where asked. A
   * raw prompt is run as it is: nothing is added to it (its message schema refused what would be).
   */
  private async augment(model: ModelDefinition, params: TextCompletionParams, signal: AbortSignal, webContextMaxBytes?: number): Promise<AugmentedChat> {
    const svc = this.svc.parametersOf(params);
    if (isRawCompletion(params)) return new AugmentedChat(svc, null, [], '');
    return this.augmentation.prepare(model, svc, await this.svc.messages(model, params), maxTokensOf(model, params), signal, webContextMaxBytes);
  }

  /** Generates every choice, relaying its pieces as chunks; the role chunk waits for the first output. */
  private async streamChoices(
    { params }: StreamChatRequest,
    model: ModelDefinition,
    engine: () => TextEngine,
    publisher: StreamPublisher,
    state: StreamState,
    web: AugmentedChat,
  ): Promise<GenerateResult[]> {
    const filters: Array<ReturnType<SvcParametersApplier['outputFilter']>> = [];
    // Per choice: think blocks first, then citation markers (docs/retrieval.md).
    const filter = (index: number) => (filters[index] ??= chainFilters(this.svc.outputFilter(params), web.citationFilter()));
    const documents = web.documentsToolCall();
    // The role chunk waits for the first output, so a prompt the model refuses (context length) is still an HTTP error.
    let opened = false;
    // Model-server retries before the first output: the gateway's x-retry-count, on the first chunk.
    let retries = 0;
    const open = async (index: number) => {
      const results = opened ? undefined : web.streamedResults();
      const retried = opened ? {} : withUpstreamRetries(retries);
      if (results) await publisher.chunk({ ...state.chunks.searchResults(results), ...retried });
      if (!opened) await publisher.chunk({ ...state.chunks.role(), svc_parameters: web.echo(), ...(results ? {} : retried) });
      if (index > 0 && !filters[index]) await publisher.chunk(state.chunks.role(index));
      opened = true;
      filter(index);
    };
    const { results } = await generateChoices(this.candidates(model, params, engine), preparedParams(params, web), publisher.signal, {
      // Chunks name the model that answers (a fallback, when the requested one failed before output).
      candidate: (answering) => void (state.chunks = new ChunkFactory(state.completionId, answering.id)),
      retry: () => void retries++,
      text: async (index, text) => {
        await open(index);
        const visible = filter(index).push(text);
        if (visible) await publisher.chunk(state.chunks.content(visible, index));
        state.pieces++;
      },
      done: async (index, choice) => {
        await open(index);
        const rest = filter(index).flush();
        if (rest) await publisher.chunk(state.chunks.content(rest, index));
        const calls = documents ? [documents, ...(choice.toolCalls ?? [])] : choice.toolCalls;
        for (const chunk of state.chunks.toolCalls(calls ?? [], index)) await publisher.chunk(chunk);
      },
    });
    return results;
  }

  /** Settles what was generated, then sends the finish (and usage) chunks and the end frame. */
  private async finishStream(
    { caller, params, billing }: StreamChatRequest,
    model: ModelDefinition,
    publisher: StreamPublisher,
    state: StreamState,
    web: AugmentedChat,
    results: GenerateResult[],
  ): Promise<void> {
    const result = combineResults(results);
    this.billing.settle(billing, caller.requestId, 'completed', Object.assign(textUsage(result), web.billable()), Date.now() - state.started);
    state.settled = true;
    for (const [index, choice] of results.entries()) await publisher.chunk(state.chunks.finish(choice.finishReason, index, choice.logprobs ?? null));
    if (params.stream_options?.include_usage) await publisher.chunk(state.chunks.usage(usageOf(result)));
    publisher.end({ usage: usageOf(result), finishReason: result.finishReason });
    this.logger.info(
      {
        requestId: caller.requestId,
        model: model.id,
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        ms: Date.now() - state.started,
      },
      'stream completed',
    );
  }

  /** A stream cut by its reader is settled as cut and closed; one that failed, as failed with an error frame. */
  private endStreamEarly({ caller, billing }: StreamChatRequest, model: ModelDefinition, publisher: StreamPublisher, state: StreamState, err: unknown): void {
    const partial = partialUsage(state.pieces, promptTokensOnAbort(err));
    // A cut or failed stream still pays for the searches and pages it used, once it produced something.
    const produced = partial && state.web ? { ...partial, ...state.web.billable() } : partial;
    const ms = Date.now() - state.started;
    if (err instanceof GenerationAbortedError || err instanceof StreamAbortedError || publisher.signal.aborted) {
      if (!state.settled) this.billing.settle(billing, caller.requestId, 'cut', produced, ms);
      this.logger.info({ requestId: caller.requestId, model: model.id, reason: String(publisher.signal.reason ?? 'aborted'), ms }, 'stream cancelled');
      publisher.close();
      return;
    }
    if (!state.settled) this.billing.settle(billing, caller.requestId, 'failed', produced, ms);
    const error = err instanceof DomainError ? err : new DomainError(ErrorCode.Internal, 'Generation failed.');
    if (!(err instanceof DomainError)) this.logger.error({ requestId: caller.requestId, model: model.id, err: errorMessage(err) }, 'stream failed');
    publisher.error(error.toPayload());
  }

  /**
   * The request's exact prompt tokens on its model, counted the way the engine will when it runs
   * it (docs/billing.md, "Exact at the margin"); null where that cannot be known.
   */
  async countPrompt({ params }: CountPromptRequest): Promise<CountPromptReply> {
    const model = this.model(params.model);
    if (isRawCompletion(params)) return this.countRawPrompt(model, params);
    const svc = this.svc.parametersOf(params);
    let messages = await this.svc.messages(model, params);
    // The web context is searched now, as the run will search it: the hold then covers what was
    // found, not the cap, and the run is held to that size (its webContextMaxBytes).
    let web: { webContextBytes: number } | undefined;
    if (wantsAugmentation(svc)) {
      const augmented = await this.augmentation.prepare(model, svc, messages, maxTokensOf(model, params), AbortSignal.timeout(COUNT_SEARCH_TIMEOUT_MS));
      messages = augmented.messages;
      web = { webContextBytes: Buffer.byteLength(augmented.injected, 'utf8') };
    }
    const uncounted = { promptTokens: null, evaluations: 1, ...web };
    const engine = params.fallbacks?.length ? undefined : this.engines.get(model);
    if (!engine?.countPromptTokens) return uncounted;
    const request = toGenerateRequest(model, { ...params, messages }, UNUSED_SIGNAL);
    // An upstream's tools are rendered by its own template, which its /tokenize is not given.
    if (engine.kind === 'upstream' && request.tools?.length) return uncounted;
    const prompt = engine.kind === 'embedded' && request.tools?.length ? planToolUse(messages, request.tools, request.toolChoice).messages : messages;
    return { promptTokens: await engine.countPromptTokens(prompt), evaluations: promptEvaluations(engine, request), ...web };
  }

  /** A raw prompt's tokens as its engine runs it (the text as it is, nothing added). */
  private async countRawPrompt(model: ModelDefinition, params: RawCompletionParams): Promise<CountPromptReply> {
    const engine = params.fallbacks?.length ? undefined : this.engines.get(model);
    if (!engine?.countPromptTokens) return { promptTokens: null, evaluations: 1 };
    const request = toGenerateRequest(model, params, UNUSED_SIGNAL);
    return { promptTokens: await engine.countPromptTokens(params.prompt), evaluations: promptEvaluations(engine, request) };
  }

  private model(id: string): ModelDefinition {
    return this.catalog.require(id, 'text');
  }

  /** The requested model, then the request's `fallbacks` (docs/chat.md, "Upstream routing"). */
  private candidates(model: ModelDefinition, params: CompleteChatRequest['params'], engine?: () => TextEngine): Candidate[] {
    const fallbacks = (params.fallbacks ?? []).map((id) => this.model(id));
    return [model, ...fallbacks].map((m, i) => ({ model: m, engine: i === 0 && engine ? engine : () => this.engines.get(m) }));
  }
}

/** A count's web search: the gateway waits for the count a little longer than this (COUNT_TIMEOUT_MS). */
const COUNT_SEARCH_TIMEOUT_MS = 8_000;

/** For requests built only to be validated or measured, never sent: nothing listens to it. */
const UNUSED_SIGNAL = new AbortController().signal;
const maxTokensOf = (model: ModelDefinition, params: CompleteChatRequest['params']): number => toGenerateRequest(model, params, UNUSED_SIGNAL).maxTokens;

/** What the engines run: a chat request with its prepared messages (AugmentedChat), a raw prompt as it is. */
const preparedParams = (params: TextCompletionParams, web: AugmentedChat): TextCompletionParams =>
  isRawCompletion(params) ? params : Object.assign({}, params, { messages: web.messages });

const textUsage = (result: GenerateResult): SettledUsage => ({ kind: 'text', promptTokens: result.promptTokens, completionTokens: result.completionTokens });

/** What a stream's steps share: its chunk factory (renamed when a fallback answers), what it produced, whether it settled. */
interface StreamState {
  completionId: string;
  chunks: ChunkFactory;
  started: number;
  /** Content pieces handed to the gateway: what a cut or failed stream is billed for. */
  pieces: number;
  settled: boolean;
  web?: AugmentedChat;
}

/** A stream that ended early is billed for the pieces generated; nothing when nothing was produced. */
function partialUsage(pieces: number, promptTokens: number | null): SettledUsage | null {
  if (pieces === 0 && promptTokens === null) return null;
  return { kind: 'text', promptTokens, completionTokens: pieces };
}
