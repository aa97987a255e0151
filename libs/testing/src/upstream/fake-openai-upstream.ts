import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { FailureMode, FakeUpstreamOptions, RecordedRequest, resolveOptions, ResolvedFakeUpstreamOptions } from './fake-upstream-options';
import {
  ChatRequest,
  chunkEvent,
  CompletionMeta,
  completionBody,
  countPromptBytes,
  countPromptWords,
  countTextPrompt,
  errorBody,
  FinishReason,
  parseChatRequest,
  parseTextCompletionRequest,
  SSE_DONE,
  sseEvent,
  textChunkEvent,
  textCompletionBody,
  TextCompletionRequest,
  textLogprobs,
  tokenText,
  Usage,
  usageOf,
} from './synthetic-completion';
import { moderationBody } from './synthetic-moderation';

export interface RunningFakeUpstream {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** OpenAI-style base URL (`<url>/v1`), what SDKs and the catalog's `baseUrl` expect. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

/** What this server's /apply-template puts before the messages (llama.cpp's endpoints, faked). */
const FAKE_TEMPLATE = '<fake-chat-template>';

/** How one answer is written: a chat completion, or a legacy text completion (the same tokens, usage and failures). */
interface AnswerShape {
  body(meta: CompletionMeta, tokens: number, finish: FinishReason, usage: Usage): object;
  /** The events before the first token's (the chat role chunk), '' for none. */
  opening(meta: CompletionMeta): string;
  token(meta: CompletionMeta, i: number): string;
  finish(meta: CompletionMeta, finish: FinishReason): string;
  usage(meta: CompletionMeta, usage: Usage): string;
  truncated(meta: CompletionMeta): string;
}

/** What an answer needs of its request, whichever API it came to. */
interface AnswerRequest {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  maxTokens?: number;
  promptTokens: number;
}

/**
 * A local OpenAI chat-completions server for adapter tests and benchmarks: `POST /v1/chat/completions`
 * and the legacy `POST /v1/completions` (a raw prompt; JSON or SSE, legacy `logprobs`), `GET
 * /v1/models`, vLLM's `POST /tokenize` (messages or a prompt) and llama.cpp's `POST /apply-template`
 * and `POST /tokenize` (the same prompt count as the completions' usage), `POST /v1/moderations`
 * (synthetic-moderation.ts), configurable timing and failures, and a record of what it received.
 * A protocol test double: its text is synthetic ("tok0 tok1 ...") and it never serves a real model.
 */
export class FakeOpenAiUpstream {
  private options: ResolvedFakeUpstreamOptions;
  private failuresLeft: number | undefined;
  private readonly records: RecordedRequest[] = [];
  private received = 0;
  private completions = 0;
  private moderations = 0;
  private server: Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(options: FakeUpstreamOptions = {}) {
    this.options = resolveOptions(options);
    this.failuresLeft = this.options.failureTimes;
  }

  /** The most recent requests (up to `recordLimit`), oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.records;
  }

  /** Every request received since start, recorded or not. */
  get requestCount(): number {
    return this.received;
  }

  /** Changes behaviour for the requests that follow; setting `failure` or `failureTimes` restarts the failure count. */
  configure(changes: FakeUpstreamOptions): void {
    this.options = resolveOptions({ ...this.options, ...changes });
    if ('failure' in changes || 'failureTimes' in changes) this.failuresLeft = this.options.failureTimes;
  }

  clearRequests(): void {
    this.records.length = 0;
  }

  async start(): Promise<RunningFakeUpstream> {
    if (this.server) throw new Error('FakeOpenAiUpstream already started');
    const server = createServer((req, res) => this.handle(req, res));
    // Longer than any client's keep-alive, so a pooled connection is never closed under a request.
    server.keepAliveTimeout = 65_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    const url = `http://${host}:${port}`;
    return { url, baseUrl: `${url}/v1`, port, close: () => this.close() };
  }

  /** Stops listening and cuts every open connection, hung and streaming ones included. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.route(req, res, chunks.length === 0 ? '' : Buffer.concat(chunks).toString('utf8')));
  }

  private route(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? '/').split('?')[0];
    const record = this.record(req, path, raw);
    res.on('close', () => {
      if (record.outcome === 'pending') record.outcome = res.writableFinished ? 'completed' : 'client-aborted';
    });
    const { apiKey } = this.options;
    if (apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    if (path === '/v1/models') {
      if (req.method !== 'GET') return sendJson(res, 405, errorBody(`Method ${req.method} not allowed.`, 'invalid_request_error', null));
      const data = this.options.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake-upstream' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (path === '/apply-template') {
      // llama.cpp server's: the chat template applied. This one writes the messages as a marked
      // JSON line, so its /tokenize below counts them exactly as the completions' usage does.
      if (req.method !== 'POST') return sendJson(res, 405, errorBody(`Method ${req.method} not allowed.`, 'invalid_request_error', null));
      const messages = (record.body as { messages?: unknown } | null)?.messages;
      if (!Array.isArray(messages)) return sendJson(res, 400, errorBody('messages is required.', 'invalid_request_error', null));
      return sendJson(res, 200, { prompt: `${FAKE_TEMPLATE}${JSON.stringify(messages)}` });
    }
    if (path === '/tokenize' && typeof (record.body as { content?: unknown } | null)?.content === 'string') {
      // llama.cpp server's: the tokens of a text (a prompt its /apply-template wrote, or a raw prompt as /v1/completions counts it).
      if (req.method !== 'POST') return sendJson(res, 405, errorBody(`Method ${req.method} not allowed.`, 'invalid_request_error', null));
      const content = (record.body as { content: string }).content;
      const count = content.startsWith(FAKE_TEMPLATE)
        ? this.countMessages(JSON.parse(content.slice(FAKE_TEMPLATE.length)) as unknown[])
        : this.countText(content);
      return sendJson(res, 200, { tokens: Array.from({ length: count }, (_, i) => i % 32_000) });
    }
    if (path === '/tokenize') {
      // vLLM's: the prompt's tokens for chat messages or a raw prompt, counted as the completions' usage counts them.
      if (req.method !== 'POST') return sendJson(res, 405, errorBody(`Method ${req.method} not allowed.`, 'invalid_request_error', null));
      const { messages, prompt } = (record.body ?? {}) as { messages?: unknown; prompt?: unknown };
      if (!Array.isArray(messages) && typeof prompt !== 'string')
        return sendJson(res, 400, errorBody('messages or prompt is required.', 'invalid_request_error', null));
      const count = typeof prompt === 'string' ? this.countText(prompt) : this.countMessages(messages as unknown[]);
      return sendJson(res, 200, { count, max_model_len: 32_768, tokens: Array.from({ length: count }, (_, i) => i % 32_000) });
    }
    if (path === '/v1/chat/completions') {
      if (req.method !== 'POST') return sendJson(res, 405, errorBody(`Method ${req.method} not allowed.`, 'invalid_request_error', null));
      if (typeof record.body !== 'object' || record.body === null) {
        return sendJson(res, 400, errorBody('We could not parse the JSON body of your request.', 'invalid_request_error', null));
      }
      const chat = parseChatRequest(record.body);
      if (typeof chat === 'string') return sendJson(res, 400, errorBody(chat, 'invalid_request_error', null));
      return this.chat(req, res, record, chat);
    }
    if (path === '/v1/completions') {
      if (req.method !== 'POST') return sendJson(res, 405, errorBody(`Method ${req.method} not allowed.`, 'invalid_request_error', null));
      const text = parseTextCompletionRequest(record.body);
      if (typeof text === 'string') return sendJson(res, 400, errorBody(text, 'invalid_request_error', null));
      return this.textCompletion(req, res, record, text);
    }
    if (path === '/v1/moderations') {
      // Test-only: flags what a text marks with `[flag:<category>]` (synthetic-moderation.ts), judges nothing.
      if (req.method !== 'POST') return sendJson(res, 405, errorBody(`Method ${req.method} not allowed.`, 'invalid_request_error', null));
      const answer = moderationBody(record.body, `modr-fake-${++this.moderations}`);
      if (typeof answer === 'string') return sendJson(res, 400, errorBody(answer, 'invalid_request_error', null));
      return sendJson(res, 200, answer);
    }
    sendJson(res, 404, errorBody(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url'));
  }

  private record(req: IncomingMessage, path: string, raw: string): RecordedRequest {
    this.received++;
    let body: unknown = undefined;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const record: RecordedRequest = { method: req.method ?? '', path, headers: { ...req.headers }, body, receivedAt: Date.now(), outcome: 'pending' };
    const limit = this.options.recordLimit;
    if (limit > 0) {
      if (this.records.length >= limit) this.records.shift();
      this.records.push(record);
    }
    return record;
  }

  private takeFailure(): FailureMode {
    if (this.options.failure === 'none') return 'none';
    if (this.failuresLeft === undefined) return this.options.failure;
    if (this.failuresLeft <= 0) return 'none';
    this.failuresLeft--;
    return this.options.failure;
  }

  private countMessages(messages: unknown[]): number {
    return this.options.promptTokens === 'bytes' ? countPromptBytes(messages, undefined) : countPromptWords(messages);
  }

  private countText(prompt: string): number {
    return countTextPrompt(prompt, this.options.promptTokens);
  }

  private chat(req: IncomingMessage, res: ServerResponse, record: RecordedRequest, chat: ChatRequest): void {
    const incl = chat.includeUsage;
    const promptTokens = this.options.promptTokens === 'bytes' ? countPromptBytes(chat.messages, chat.tools) : countPromptWords(chat.messages);
    this.answer(
      req,
      res,
      record,
      { ...chat, promptTokens },
      {
        body: completionBody,
        opening: (meta) => chunkEvent(meta, { role: 'assistant', content: '', refusal: null }, null, incl),
        token: (meta, i) => chunkEvent(meta, { content: tokenText(i) }, null, incl),
        finish: (meta, finish) => chunkEvent(meta, {}, finish, incl),
        usage: (meta, usage) => chunkEvent(meta, null, null, true, usage),
        truncated: truncatedJson,
      },
    );
  }

  /** The legacy completions API: the prompt continued, with `logprobs: k` in its legacy shape (text_offset from the prompt's end). */
  private textCompletion(req: IncomingMessage, res: ServerResponse, record: RecordedRequest, text: TextCompletionRequest): void {
    const incl = text.includeUsage;
    const k = text.logprobs;
    const logprobs = (tokens: number, from = 0) => (k === undefined ? null : textLogprobs(tokens, k, text.prompt.length, from));
    this.answer(
      req,
      res,
      record,
      { ...text, promptTokens: this.countText(text.prompt) },
      {
        body: (meta, tokens, finish, usage) => textCompletionBody(meta, tokens, finish, usage, logprobs(tokens)),
        opening: () => '',
        token: (meta, i) => textChunkEvent(meta, tokenText(i), null, incl, logprobs(i + 1, i)),
        finish: (meta, finish) => textChunkEvent(meta, '', finish, incl),
        usage: (meta, usage) => textChunkEvent(meta, null, null, true, null, usage),
        truncated: (meta) => `{"id":"${meta.id}","object":"text_completion","choices":[{"index":0,"te`,
      },
    );
  }

  /** One answer of either API: its failure, if configured, else its tokens, plain or streamed, with usage. */
  private answer(req: IncomingMessage, res: ServerResponse, record: RecordedRequest, request: AnswerRequest, shape: AnswerShape): void {
    const failure = this.takeFailure();
    switch (failure) {
      case 'http-500':
        return sendJson(res, 500, errorBody('The fake upstream was told to fail.', 'server_error', null));
      case 'http-429':
        res.setHeader('retry-after', String(this.options.retryAfterSeconds));
        return sendJson(res, 429, errorBody('Rate limit reached (fake upstream).', 'requests', 'rate_limit_exceeded'));
      case 'hang':
        record.outcome = 'hung';
        return;
      case 'drop-mid-stream':
        if (!request.stream) {
          record.outcome = 'dropped';
          req.socket.destroy();
          return;
        }
        break;
      case 'malformed-json':
      case 'none':
        break;
    }
    const { completionTokens } = this.options;
    const tokens = Math.min(completionTokens, request.maxTokens ?? completionTokens);
    const finish = tokens < completionTokens ? 'length' : 'stop';
    const usage = usageOf(request.promptTokens, tokens);
    const meta: CompletionMeta = { id: `chatcmpl-fake-${++this.completions}`, created: Math.floor(Date.now() / 1000), model: request.model };

    if (!request.stream) {
      const delay = tokens === 0 ? this.options.firstTokenDelayMs : this.options.firstTokenDelayMs + this.options.tokenDelayMs * (tokens - 1);
      return this.after(res, delay, () => {
        if (failure === 'malformed-json') return sendText(res, 200, 'application/json', shape.truncated(meta));
        sendJson(res, 200, shape.body(meta, tokens, finish, usage));
      });
    }

    // Streaming: the role chunk goes with the first token, so the first body byte marks the first token.
    const events = Array.from({ length: tokens }, (_, i) => shape.token(meta, i));
    if (failure === 'malformed-json') events.splice(Math.min(1, tokens), 0, sseEvent(shape.truncated(meta)));
    const drop = failure === 'drop-mid-stream';
    if (drop) events.length = Math.min(tokens, this.options.dropAfterTokens ?? Math.floor(tokens / 2));
    else {
      const tail = shape.finish(meta, finish) + (request.includeUsage ? shape.usage(meta, usage) : '') + SSE_DONE;
      if (events.length > 0) events[events.length - 1] += tail;
      else events.push(tail);
    }
    const role = shape.opening(meta);
    // One write per token when paced; otherwise the whole answer in one write.
    const writes = this.options.tokenDelayMs > 0 ? [role + (events.shift() ?? ''), ...events] : [role + events.join('')];

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    if (this.options.firstTokenDelayMs > 0) res.flushHeaders();
    const step = (i: number): void => {
      if (i < writes.length - 1) {
        res.write(writes[i]);
        this.after(res, this.options.tokenDelayMs, () => step(i + 1));
      } else if (drop) {
        record.outcome = 'dropped';
        res.write(writes[i], () => res.socket?.destroy());
      } else {
        res.end(writes[i]);
      }
    };
    this.after(res, this.options.firstTokenDelayMs, () => step(0));
  }

  /** Runs `fn` after `ms` (at once for 0) unless the client has gone away meanwhile. */
  private after(res: ServerResponse, ms: number, fn: () => void): void {
    if (ms <= 0) return fn();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      res.off('close', cancel);
      if (!res.destroyed) fn();
    }, ms);
    const cancel = (): void => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
    this.timers.add(timer);
    res.once('close', cancel);
  }
}

/** Creates and starts a fake upstream; `close()` on the result stops it. */
export async function startFakeOpenAiUpstream(options: FakeUpstreamOptions = {}): Promise<RunningFakeUpstream & { upstream: FakeOpenAiUpstream }> {
  const upstream = new FakeOpenAiUpstream(options);
  const running = await upstream.start();
  return { ...running, upstream };
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  sendText(res, status, 'application/json', JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function truncatedJson(meta: CompletionMeta): string {
  return `{"id":"${meta.id}","object":"chat.completion","choices":[{"index":0,"message":{"role":"assi`;
}
