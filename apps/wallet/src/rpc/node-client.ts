import { Agent, Dispatcher, request } from 'undici';
import { RpcNetwork } from './rpc.config';

/** Why a node gave no usable answer. Never carries the node's URL (operator configuration). */
export type NodeFailureReason = 'timeout' | 'unreachable' | 'status' | 'redirect' | 'too_large' | 'not_json_rpc';

export class NodeFailure extends Error {
  constructor(
    readonly reason: NodeFailureReason,
    /** For logs: an HTTP status or an error code, never an address. */
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/** Called for every failed attempt (the proxy logs it); `node` is the URL's index, 1-based. */
export type AttemptObserver = (node: number, failure: NodeFailure) => void;

/**
 * POSTs a JSON-RPC body to a network's nodes over undici: in order, the next one when a node is
 * unreachable, answers 5xx, 429 or a redirect (never followed), or answers something that is not
 * JSON-RPC; all attempts share one deadline. The answer is read up to `maxBytes`.
 */
export class NodeClient {
  private readonly agent: Dispatcher;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxBytes: number,
    agent?: Dispatcher,
  ) {
    this.agent = agent ?? new Agent({ connect: { timeout: Math.min(timeoutMs, 5_000) }, keepAliveTimeout: 10_000 });
  }

  async post(network: RpcNetwork, payload: string, isAnswer: (body: unknown) => boolean, onFailure?: AttemptObserver): Promise<unknown> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    let failure = new NodeFailure('unreachable', 'no node configured');
    for (const [index, url] of network.urls.entries()) {
      try {
        return await this.attempt(url, payload, deadline, isAnswer);
      } catch (err) {
        failure = deadline.aborted ? new NodeFailure('timeout', `no answer within ${this.timeoutMs} ms`) : asFailure(err);
        onFailure?.(index + 1, failure);
        if (failure.reason === 'timeout' || failure.reason === 'too_large') break;
      }
    }
    throw failure;
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async attempt(url: string, payload: string, signal: AbortSignal, isAnswer: (body: unknown) => boolean): Promise<unknown> {
    const res = await request(url, {
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      signal,
      dispatcher: this.agent,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    // Cutting an answer short (a redirect, a 5xx, past the cap) aborts its body: not an error of ours.
    res.body.on('error', () => undefined);
    const status = res.statusCode;
    if (status >= 300 && status < 400) {
      res.body.destroy();
      throw new NodeFailure('redirect', `HTTP ${status}`);
    }
    if (status >= 500 || status === 429) {
      res.body.destroy();
      throw new NodeFailure('status', `HTTP ${status}`);
    }
    const text = await this.read(res);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new NodeFailure('not_json_rpc', `HTTP ${status}, not JSON`);
    }
    if (!isAnswer(body)) throw new NodeFailure('not_json_rpc', `HTTP ${status}, not a JSON-RPC answer to the request`);
    return body;
  }

  private async read(res: Dispatcher.ResponseData): Promise<string> {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      res.body.destroy();
      throw new NodeFailure('too_large', `${declared} bytes declared`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > this.maxBytes) {
        res.body.destroy();
        throw new NodeFailure('too_large', `over ${this.maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

/** An undici or socket error as a failure: its code only (messages can name the address). */
function asFailure(err: unknown): NodeFailure {
  if (err instanceof NodeFailure) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new NodeFailure('timeout', code);
  return new NodeFailure('unreachable', typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : 'connection failed');
}
