import { vi } from 'vitest';

export interface Call {
  method: string;
  url: string;
  body: unknown;
  headers: Record<string, string>;
}

type Handler = (call: Call) => Response | Promise<Response>;

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * Replaces fetch with routes of `METHOD /path` (query left out) answering like the API would.
 * Returns the calls made, to assert on what the console sent.
 */
export function fakeApi(routes: Record<string, Handler>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init: RequestInit = {}) => {
      const url = String(input);
      const method = init.method ?? 'GET';
      const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
      const call = { method, url, body, headers: (init.headers ?? {}) as Record<string, string> };
      calls.push(call);
      const handler = routes[`${method} ${url.split('?')[0]}`];
      return handler ? handler(call) : json({ error: `No route ${method} ${url}` }, 404);
    }),
  );
  return calls;
}
