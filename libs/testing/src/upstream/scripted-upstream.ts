import { createServer, request as httpRequest, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { FakeOpenAiUpstream } from './fake-openai-upstream';
import { FakeUpstreamOptions } from './fake-upstream-options';
import { errorBody } from './synthetic-completion';

/**
 * What a scripted upstream does with one chat request: answer with an error `status` (an
 * OpenAI-shaped body, optional `retry-after`), `destroy` the connection before any byte, or
 * `pass` it to the FakeOpenAiUpstream behind it (which can itself hang, cut streams, ...).
 */
export type ScriptedStep = { status: number; retryAfter?: string; code?: string; message?: string } | 'destroy' | 'pass';

export interface ScriptedUpstream {
  url: string;
  baseUrl: string;
  /** The fake behind the script (configure its delays and failures; it records passed requests). */
  inner: FakeOpenAiUpstream;
  /** Chat requests received, scripted or passed. */
  readonly chatRequests: number;
  /** Steps for the next chat requests, in order; when they run out, requests pass. */
  script(...steps: ScriptedStep[]): void;
  /** Status of `GET /v1/models` (health checks); 200 passes to the fake. */
  setHealth(status: number): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-protocol server for routing tests: a scripted front (errors, dropped connections,
 * health status) before a FakeOpenAiUpstream. Several of them make a multi-endpoint model.
 */
export async function startScriptedUpstream(options: FakeUpstreamOptions = {}): Promise<ScriptedUpstream> {
  const inner = new FakeOpenAiUpstream(options);
  const running = await inner.start();
  const steps: ScriptedStep[] = [];
  let health = 200;
  let chatRequests = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path.endsWith('/models') && health !== 200) return json(res, health, errorBody('unhealthy', 'server_error', null));
    if (!path.endsWith('/chat/completions')) return pass(req, res, running.port);
    chatRequests++;
    const step = steps.shift() ?? 'pass';
    if (step === 'pass') return pass(req, res, running.port);
    req.resume();
    if (step === 'destroy') return void req.socket.destroy();
    req.on('end', () => {
      const headers: Record<string, string> = step.retryAfter ? { 'retry-after': step.retryAfter } : {};
      json(
        res,
        step.status,
        errorBody(step.message ?? `scripted ${step.status}`, step.status === 429 ? 'rate_limit_error' : 'server_error', step.code ?? null),
        headers,
      );
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    inner,
    get chatRequests() {
      return chatRequests;
    },
    script: (...next) => void steps.push(...next),
    setHealth: (status) => void (health = status),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await running.close();
    },
  };
}

function json(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Proxies the request to the inner fake, streaming both ways; a cut on one side cuts the other. */
function pass(req: IncomingMessage, res: ServerResponse, port: number): void {
  const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
    answer.on('error', () => res.destroy());
    answer.on('aborted', () => res.destroy());
  });
  upstream.on('error', () => res.destroy());
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}
