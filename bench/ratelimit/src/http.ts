import { Pool } from 'undici';

export interface Outcome {
  status: number;
  ms: number;
  /** The body of a non-200 answer (for diagnostics). */
  error?: string;
}

/** Keep-alive connections to one gateway; `connections` bounds requests in flight. */
export class GatewayClient {
  private readonly pool: Pool;

  constructor(
    readonly origin: string,
    connections: number,
  ) {
    this.pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  }

  /** POST /api/v1/chat/completions; the time is from sending to the whole body read. */
  async chat(key: string, body: string): Promise<Outcome> {
    const started = process.hrtime.bigint();
    const res = await this.pool.request({
      path: '/api/v1/chat/completions',
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    const text = await res.body.text();
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    return res.statusCode === 200 ? { status: 200, ms: elapsed } : { status: res.statusCode, ms: elapsed, error: text.slice(0, 300) };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export const chatBody = (model: string, maxTokens: number, content = 'Reply with a few words: what is a rate limit?'): string =>
  JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: maxTokens });

/** The gateway's upper bound of a one-message chat's tokens: UTF-8 bytes + 8, plus max_tokens. */
export const estimateOf = (content: string, maxTokens: number): number => Buffer.byteLength(content) + 8 + maxTokens;

/** Runs `total` calls with at most `concurrency` in flight; results in call order. */
export async function runConcurrently<T>(total: number, concurrency: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      results[i] = await call(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}
