import { Dispatcher } from 'undici';
import { ChatMessage, ChoiceLogprobs, ToolCall } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { UpstreamRouter } from '../../routing/upstream-router';
import { UpstreamEndpointConfig } from '../../routing/upstream-endpoint';
import { CircuitBreakerOptions } from '../../routing/circuit-breaker';
import { BackoffOptions } from '../../routing/backoff';
import { GenerateRequest, GenerateResult, GenerationAbortedError, OnText, TextEngine } from '../engine';
import { sseData } from './sse-lines';
import { countOnUpstream, UpstreamTokenize } from './upstream-tokenize';

/** How long a streamed body may go on after its [DONE] before it is cut. */
const DRAIN_MS = 2_000;

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
/** The legacy completions' per-token log probabilities: parallel lists, the alternatives as `{token: logprob}`. */
interface LegacyLogprobs {
  tokens?: string[];
  token_logprobs?: Array<number | null>;
  top_logprobs?: Array<Record<string, number> | null> | null;
}
/** A choice of a chat completion (`message`, `delta`) or of a raw-text completion (`text`). */
interface UpstreamChoice {
  index?: number;
  message?: { content?: string | null; tool_calls?: ToolCall[] };
  delta?: { content?: string | null; tool_calls?: UpstreamToolCallDelta[] };
  text?: string | null;
  finish_reason?: string | null;
  logprobs?: ChoiceLogprobs | LegacyLogprobs | null;
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
 * upstream's `usage`. A chat request goes to the server's `/chat/completions`; a raw prompt to its
 * `/completions` (`prompt`, no chat template), whose text, finish reason, usage and legacy log
 * probabilities are read back into the same result.
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
  async countPromptTokens(prompt: ChatMessage[] | string): Promise<number | null> {
    if (this.tokenize === 'none') return null;
    return countOnUpstream(this.router.endpoints[0], prompt, this.tokenize);
  }

  async ready(): Promise<void> {
    /* Connections open lazily; an unreachable upstream fails per request with 502. */
  }

  async generate(request: GenerateRequest, onText?: OnText): Promise<GenerateResult> {
    const stream = onText !== undefined;
    const body = (model: string) => JSON.stringify(upstreamBody(request, model, stream));
    const api = request.prompt !== undefined ? 'completions' : 'chat';
    let routed;
    try {
      routed = await this.router.send((endpoint) => body(endpoint.config.model), request.signal, request.cacheKey, request.onUpstreamRetry, api);
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
    const logprobs = logprobsOf(choice.logprobs);
    return {
      text: choice.message?.content ?? choice.text ?? '',
      finishReason: finishOf(choice.finish_reason, toolCalls !== undefined),
      ...countsOf(body.usage),
      ...(toolCalls ? { toolCalls } : {}),
      ...(logprobs ? { logprobs: { content: logprobs, refusal: null } } : {}),
    };
  }

  private async readStream(body: Dispatcher.ResponseData['body'], onText: OnText): Promise<GenerateResult> {
    let read = false;
    try {
      const result = await this.readEvents(body.iterator({ destroyOnReturn: false }), onText);
      read = true;
      return result;
    } finally {
      // Stopping at [DONE] does not destroy the body (Node would, with an AbortError whose stack
      // trace was 7% of a stream's CPU): what follows it, the body's end, is drained, so the
      // connection is reused; a server that never ends the body is cut after DRAIN_MS. A failed
      // read destroys it.
      if (read) drain(body);
      else body.destroy();
    }
  }

  private async readEvents(body: AsyncIterable<Buffer>, onText: OnText): Promise<GenerateResult> {
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
      logprobs.push(...(logprobsOf(choice.logprobs) ?? []));
      for (const delta of choice.delta?.tool_calls ?? []) {
        const call = (calls[delta.index ?? 0] ??= { id: '', name: '', arguments: '' });
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name += delta.function.name;
        if (delta.function?.arguments) call.arguments += delta.function.arguments;
      }
      const piece = choice.delta?.content ?? choice.text;
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

/**
 * Reads the rest of a streamed body in the background, cutting it after DRAIN_MS. dump's `limit`
 * counts the whole body's bytes, not what is left, so the time is the only limit. The timer is our
 * own: a signal of `AbortSignal.timeout` that nothing else holds may be collected before it fires.
 */
function drain(body: Dispatcher.ResponseData['body']): void {
  const cut = new AbortController();
  const timer = setTimeout(() => cut.abort(), DRAIN_MS);
  void body
    .dump({ limit: Number.MAX_SAFE_INTEGER, signal: cut.signal })
    .catch(() => undefined)
    .finally(() => clearTimeout(timer));
}

/**
 * The body sent upstream: unknown fields first, so ours (model above all) win. A chat request's
 * for `/chat/completions`; a raw prompt's for `/completions`, where `logprobs` is the number of
 * alternatives per token (the legacy API's form of chat's `logprobs` and `top_logprobs`).
 * Built field by field rather than spread onto the passthrough: an object literal that starts with
 * a spread is slow on Node 20 (docs/architecture.md, "Object spreads on the request path").
 */
export function upstreamBody(request: GenerateRequest, model: string, stream: boolean): Record<string, unknown> {
  const body = ownFields(request.passthrough);
  const tail = { prompt_cache_key: request.cacheKey, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
  if (request.prompt !== undefined) {
    return Object.assign(body, {
      model,
      prompt: request.prompt,
      ...samplingOf(request),
      logprobs: request.logprobs ? (request.topLogprobs ?? 0) : undefined,
      response_format: request.responseFormat,
      ...tail,
    });
  }
  return Object.assign(body, {
    model,
    messages: request.messages.map(upstreamMessage),
    ...samplingOf(request),
    logprobs: request.logprobs,
    top_logprobs: request.topLogprobs,
    response_format: request.responseFormat,
    tools: request.tools,
    tool_choice: request.toolChoice,
    parallel_tool_calls: request.parallelToolCalls,
    ...tail,
  });
}

/** The caller's fields as own properties of a new object, whatever their names (`__proto__` included), as a spread copies them. */
function ownFields(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const key of Object.keys(fields ?? {})) Object.defineProperty(own, key, { value: fields![key], enumerable: true, writable: true, configurable: true });
  return own;
}

/** The sampling fields both upstream APIs take as they are. */
function samplingOf(request: GenerateRequest): Record<string, unknown> {
  return {
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
  };
}

/**
 * Per-token log probabilities as chat has them: a chat answer's as they came, a raw-text
 * completion's parallel lists turned into entries (no bytes: that API gives none).
 */
function logprobsOf(logprobs: UpstreamChoice['logprobs']): NonNullable<ChoiceLogprobs['content']> | undefined {
  if (!logprobs) return undefined;
  if ('content' in logprobs) return logprobs.content ?? undefined;
  const tops = logprobs.top_logprobs ?? [];
  return (logprobs.tokens ?? []).map((token, i) => ({
    token,
    logprob: logprobs.token_logprobs?.[i] ?? 0,
    bytes: null,
    top_logprobs: Object.entries(tops[i] ?? {}).map(([alternative, logprob]) => ({ token: alternative, logprob, bytes: null })),
  }));
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
