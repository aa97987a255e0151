import { Pool } from 'undici';
import { performance } from 'node:perf_hooks';
import { LatencySummary, summarize } from './percentiles';
import { Target } from './load';

export interface StreamResult {
  requests: number;
  /** Until the response headers. */
  headersMs: LatencySummary;
  /** Until the first body byte. */
  firstByteMs: LatencySummary;
  /** Until the first SSE event with non-empty `delta.content`. */
  firstTokenMs: LatencySummary;
  totalMs: LatencySummary;
}

interface OneStream {
  headersMs: number;
  firstByteMs: number;
  firstTokenMs: number;
  totalMs: number;
}

/**
 * Sequential streaming requests over one kept-alive connection, so every request pays the
 * server's per-request cost and none of the connection setup. `target.body` must ask for `stream: true`.
 */
export async function measureStreaming(target: Target, requests: number, warmup: number): Promise<StreamResult> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: 1, pipelining: 1 });
  try {
    for (let i = 0; i < warmup; i++) await oneStream(pool, url, target);
    const runs: OneStream[] = [];
    for (let i = 0; i < requests; i++) runs.push(await oneStream(pool, url, target));
    return {
      requests,
      headersMs: summarize(runs.map((r) => r.headersMs)),
      firstByteMs: summarize(runs.map((r) => r.firstByteMs)),
      firstTokenMs: summarize(runs.map((r) => r.firstTokenMs)),
      totalMs: summarize(runs.map((r) => r.totalMs)),
    };
  } finally {
    await pool.close();
  }
}

async function oneStream(pool: Pool, url: URL, target: Target): Promise<OneStream> {
  const started = performance.now();
  const res = await pool.request({
    method: 'POST',
    path: url.pathname + url.search,
    headers: { ...target.headers, accept: 'text/event-stream' },
    body: target.body,
  });
  const headersMs = performance.now() - started;
  let firstByteMs = Number.NaN;
  let firstTokenMs = Number.NaN;
  let text = '';
  for await (const chunk of res.body) {
    if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
    text += (chunk as Buffer).toString('utf8');
    if (Number.isNaN(firstTokenMs) && /"content":\s*"[^"]/.test(text)) firstTokenMs = performance.now() - started;
  }
  const totalMs = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`streaming request to ${target.url} answered ${res.statusCode}: ${text.slice(0, 500)}`);
  if (!text.includes('data: [DONE]')) throw new Error(`stream from ${target.url} ended without [DONE]: ${text.slice(-300)}`);
  if (Number.isNaN(firstTokenMs)) throw new Error(`stream from ${target.url} carried no content: ${text.slice(0, 300)}`);
  return { headersMs, firstByteMs, firstTokenMs, totalMs };
}
