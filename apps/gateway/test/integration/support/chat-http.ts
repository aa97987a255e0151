import { createServer, RequestListener } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ApiRequest {
  key?: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the raw text when it is not JSON (SSE). */
  body: any;
  text: string;
}

/** A JSON request to the gateway API: POST when there is a body, GET otherwise; no Authorization without a key. */
export async function requestApi(api: string, pathname: string, init: ApiRequest = {}): Promise<ApiAnswer> {
  const res = await fetch(`${api}${pathname}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...(init.key === undefined ? {} : { authorization: `Bearer ${init.key}` }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // SSE
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** The chunks of an SSE body, without [DONE]. */
export function chunksOf(sse: string): any[] {
  return sse
    .split('\n\n')
    .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
    .map((e) => JSON.parse(e.slice('data: '.length)));
}

/** The content deltas of the first choice, joined. */
export const streamedText = (chunks: any[]): string => chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');

export interface LocalServer {
  port: number;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 and a free port, for fake upstreams and pages. */
export async function startLocalServer(handler: RequestListener): Promise<LocalServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
