import { ChatMessage, ChoiceLogprobs, ToolCall } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { UpstreamRouter } from '../../routing/upstream-router';
import { UpstreamEndpointConfig } from '../../routing/upstream-endpoint';
import { CircuitBreakerOptions } from '../../routing/circuit-breaker';
import { BackoffOptions } from '../../routing/backoff';
import { GenerateRequest, GenerateResult, GenerationAbortedError, OnText, TextEngine } from '../engine';
import { sseData } from './sse-lines';
import { countOnUpstream, UpstreamTokenize } from './upstream-tokenize';

export interface OpenAICompatibleEngineOptions {
  /** Base URL including the API prefix, e.g. `http://127.0.0.1:8000/v1` (the first endpoint). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** More endpoints serving the same model (see UpstreamRouter). */
  endpoints?: Array<Partial<UpstreamEndpointConfig> & { baseUrl: string }>;
  timeoutMs: number;
  connections: number;
  retries?: number;
  healthCheckIntervalMs?: number;
  circuitBreaker?: CircuitBreakerOptions;
  backoff?: BackoffOptions;
  logger?: { warn(obj: object, msg: string): void };
  /** The server's own tokenizer for counting a prompt at the margin (docs/billing.md, "Exact at the margin"). */
  tokenize?: UpstreamTokenize;
}

interface UpstreamToolCallDelta {
  index?: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}
interface UpstreamChoice {
  index?: number;
  message?: { content?: string | null; tool_calls?: ToolCall[] };
  delta?: { content?: string | null; tool_calls?: UpstreamToolCallDelta[] };
  finish_reason?: string | null;
  logprobs?: ChoiceLogprobs | null;
}
interface UpstreamUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}
interface UpstreamBody {
  choices?: UpstreamChoice[];
  usage?: UpstreamUsage | null;
}

/**
 * Any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, ...), on one or several endpoints
 * through UpstreamRouter. Request features pass through as sent (content parts, tools,
 * response_format, sampling fields and fields this API does not know); counts come from the
 * upstream's `usage`.
 */
export class OpenAICompatibleEngine implements TextEngine {
  readonly kind = 'upstream' as const;
  readonly router: UpstreamRouter;

  private readonly tokenize: UpstreamTokenize;

  constructor(options: OpenAICompatibleEngineOptions) {
    this.tokenize = options.tokenize ?? 'none';
    const first: UpstreamEndpointConfig = { baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey };
    const more = (options.endpoints ?? []).map((e) => ({ baseUrl: e.baseUrl, model: e.model ?? options.model, apiKey: e.apiKey ?? options.apiKey }));
    this.router = new UpstreamRouter({
      endpoints: [first, ...more],
      timeoutMs: options.timeoutMs,
      connections: options.connections,
      retries: options.retries ?? 2,
      healthCheckIntervalMs: options.healthCheckIntervalMs ?? 0,
      circuitBreaker: options.circuitBreaker ?? { failureThreshold: 5, cooldownMs: 30_000 },
      backoff: options.backoff,
      logger: options.logger,
    });
  }

  /** Counts on the first endpoint's tokenizer when the catalog says the server has one. */
  async countPromptTokens(messages: ChatMessage[]): Promise<number | null> {
    if (this.tokenize === 'none') return null;
    return countOnUpstream(this.router.endpoints[0], messages, this.tokenize);
  }

  async ready(): Promise<void> {
    /* Connections open lazily; an unreachable upstream fails per request with 502. */
  }

  async generate(request: GenerateRequest, onText?: OnText): Promise<GenerateResult> {
    const stream = onText !== undefined;
    const body = (model: string) => JSON.stringify(upstreamBody(request, model, stream));
    let routed;
    try {
      routed = await this.router.send((endpoint) => body(endpoint.config.model), request.signal, request.cacheKey, request.onUpstreamRetry);
    } catch (err) {
      if (request.signal.aborted) throw abortError();
      throw this.router.errors.transport(err);
    }
    try {
      const res = routed.response;
      return stream ? await this.readStream(res.body, onText) : this.readCompletion((await res.body.json()) as UpstreamBody);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw request.signal.aborted ? abortError() : this.router.errors.transport(err, 'response');
    } finally {
      routed.release();
    }
  }

  private readCompletion(body: UpstreamBody): GenerateResult {
    const choice = body.choices?.[0];
    if (!choice) throw new DomainError(ErrorCode.Upstream, 'The model server returned no choices.');
    const toolCalls = choice.message?.tool_calls?.length ? choice.message.tool_calls : undefined;
    return {
      text: choice.message?.content ?? '',
      finishReason: finishOf(choice.finish_reason, toolCalls !== undefined),
      ...countsOf(body.usage),
      ...(toolCalls ? { toolCalls } : {}),
      ...(choice.logprobs ? { logprobs: choice.logprobs } : {}),
    };
  }

  private async readStream(body: AsyncIterable<Buffer>, onText: OnText): Promise<GenerateResult> {
    let text = '';
    let finish: string | null | undefined;
    let usage: UpstreamBody['usage'];
    let pieces = 0;
    let ended = false;
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    const logprobs: NonNullable<ChoiceLogprobs['content']> = [];
    for await (const data of sseData(body)) {
      if (data === '[DONE]') {
        ended = true;
        break;
      }
      const chunk = JSON.parse(data) as UpstreamBody;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      finish = choice.finish_reason ?? finish;
      if (choice.logprobs?.content) logprobs.push(...choice.logprobs.content);
      for (const delta of choice.delta?.tool_calls ?? []) {
        const call = (calls[delta.index ?? 0] ??= { id: '', name: '', arguments: '' });
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name += delta.function.name;
        if (delta.function?.arguments) call.arguments += delta.function.arguments;
      }
      const piece = choice.delta?.content;
      if (piece) {
        text += piece;
        pieces++;
        await onText(piece);
      }
    }
    // A stream cut before [DONE] and without a finish reason is a failure, not a short answer.
    if (!ended && !finish) throw new DomainError(ErrorCode.Upstream, 'The model server ended the stream early.');
    const toolCalls: ToolCall[] = calls.filter(Boolean).map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    const counts = countsOf(usage);
    return {
      text,
      finishReason: finishOf(finish, toolCalls.length > 0),
      ...counts,
      // Without a usage chunk (the server ignored stream_options) each content delta counts as one token.
      completionTokens: usage?.completion_tokens ?? pieces,
      ...(toolCalls.length ? { toolCalls } : {}),
      ...(logprobs.length ? { logprobs: { content: logprobs, refusal: null } } : {}),
    };
  }

  async close(): Promise<void> {
    await this.router.close();
  }
}

/** The body sent upstream: unknown fields first, so ours (model above all) win. */
export function upstreamBody(request: GenerateRequest, model: string, stream: boolean): Record<string, unknown> {
  return {
    ...(request.passthrough ?? {}),
    model,
    messages: request.messages.map(upstreamMessage),
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    top_p: request.topP,
    top_k: request.topK,
    min_p: request.minP,
    presence_penalty: request.presencePenalty,
    frequency_penalty: request.frequencyPenalty,
    repetition_penalty: request.repetitionPenalty,
    stop: request.stop,
    seed: request.seed,
    logprobs: request.logprobs,
    top_logprobs: request.topLogprobs,
    response_format: request.responseFormat,
    tools: request.tools,
    tool_choice: request.toolChoice,
    parallel_tool_calls: request.parallelToolCalls,
    prompt_cache_key: request.cacheKey,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

function upstreamMessage(m: ChatMessage): Record<string, unknown> {
  return {
    role: m.role,
    content: m.parts ?? (m.role === 'assistant' && m.tool_calls?.length && !m.content ? null : m.content),
    ...(m.name ? { name: m.name } : {}),
    ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
  };
}

function countsOf(usage: UpstreamUsage | null | undefined): Pick<GenerateResult, 'promptTokens' | 'completionTokens' | 'cachedTokens'> {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    ...(cached !== undefined ? { cachedTokens: cached } : {}),
  };
}

function finishOf(reason: string | null | undefined, hasToolCalls: boolean): GenerateResult['finishReason'] {
  if (reason === 'length' || reason === 'content_filter') return reason;
  if (reason === 'tool_calls' || reason === 'function_call' || hasToolCalls) return 'tool_calls';
  return 'stop';
}

function abortError(): GenerationAbortedError {
  return new GenerationAbortedError('cancelled by caller');
}
