import { Pool } from 'undici';
import { DomainError, ErrorCode } from '@svc/errors';
import { GenerateRequest, GenerateResult, GenerationAbortedError, OnText, TextEngine } from '../engine';
import { sseData } from './sse-lines';
import { upstreamHttpError, upstreamTransportError } from './upstream-errors';

export interface OpenAICompatibleEngineOptions {
  /** Base URL including the API prefix, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  connections: number;
}

interface UpstreamChoice {
  message?: { content?: string | null };
  delta?: { content?: string | null };
  finish_reason?: string | null;
}
interface UpstreamBody {
  choices?: UpstreamChoice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** Any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, ...), over a pooled keep-alive connection. */
export class OpenAICompatibleEngine implements TextEngine {
  readonly kind = 'upstream' as const;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: OpenAICompatibleEngineOptions) {
    const url = new URL(options.baseUrl);
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: Math.min(options.timeoutMs, 10_000) },
    });
    this.path = `${url.pathname.replace(/\/$/, '')}/chat/completions`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
  }

  async ready(): Promise<void> {
    /* Connections open lazily; an unreachable upstream fails per request with 502. */
  }

  async generate(request: GenerateRequest, onText?: OnText): Promise<GenerateResult> {
    const stream = onText !== undefined;
    const body = JSON.stringify({
      model: this.options.model,
      messages: request.messages,
      max_tokens: request.maxTokens,
      temperature: request.temperature,
      top_p: request.topP,
      stop: request.stop,
      seed: request.seed,
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    });
    let res;
    try {
      res = await this.pool.request({ method: 'POST', path: this.path, headers: this.headers, body, signal: request.signal });
    } catch (err) {
      throw request.signal.aborted ? abortError() : upstreamTransportError(err);
    }
    if (res.statusCode >= 400) {
      const text = await res.body.text().catch(() => '');
      throw upstreamHttpError(res.statusCode, text);
    }
    try {
      return stream ? await this.readStream(res.body, onText) : this.readCompletion((await res.body.json()) as UpstreamBody);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw request.signal.aborted ? abortError() : upstreamTransportError(err);
    }
  }

  private readCompletion(body: UpstreamBody): GenerateResult {
    const choice = body.choices?.[0];
    if (!choice) throw new DomainError(ErrorCode.Upstream, 'The model server returned no choices.');
    return {
      text: choice.message?.content ?? '',
      finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
      promptTokens: body.usage?.prompt_tokens ?? 0,
      completionTokens: body.usage?.completion_tokens ?? 0,
    };
  }

  private async readStream(body: AsyncIterable<Buffer>, onText: OnText): Promise<GenerateResult> {
    let text = '';
    let finish: string | null | undefined;
    let usage: UpstreamBody['usage'];
    let pieces = 0;
    for await (const data of sseData(body)) {
      if (data === '[DONE]') break;
      const chunk = JSON.parse(data) as UpstreamBody;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      finish = choice.finish_reason ?? finish;
      const piece = choice.delta?.content;
      if (piece) {
        text += piece;
        pieces++;
        await onText(piece);
      }
    }
    return {
      text,
      finishReason: finish === 'length' ? 'length' : 'stop',
      promptTokens: usage?.prompt_tokens ?? 0,
      completionTokens: usage?.completion_tokens ?? pieces,
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function abortError(): GenerationAbortedError {
  return new GenerationAbortedError('cancelled by caller');
}
