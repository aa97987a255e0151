#!/usr/bin/env node
// Memory held by large request bodies in flight in one gateway (issue 28, point 6): a burst of
// concurrent large JSON bodies, plus bodies over the limit with and without Content-Length, against
// a running gateway; prints status counts and the gateway's RSS before, at its peak and after.
// Usage and reading: README.md next to this file.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:3000' },
    key: { type: 'string', default: process.env.SVC_ADMIN_KEY ?? '' },
    pid: { type: 'string' },
    container: { type: 'string' },
    path: { type: 'string', default: '/api/v1/chat/completions' },
    concurrency: { type: 'string', default: '12' },
    size: { type: 'string', default: '39000000' },
    over: { type: 'string', default: '50000000' },
    'settle-ms': { type: 'string', default: '15000' },
    'sample-ms': { type: 'string', default: '50' },
    json: { type: 'boolean', default: false },
  },
});

const base = new URL(opts.url);
const client = base.protocol === 'https:' ? https : http;
const concurrency = Number(opts.concurrency);
const MB = 1_000_000;

/** A chat body of exactly `bytes` bytes: one user message of ASCII letters (one token asked). */
function chatBody(bytes) {
  const head = Buffer.from('{"model":"default","max_tokens":1,"messages":[{"role":"user","content":"');
  const tail = Buffer.from('"}]}');
  const body = Buffer.alloc(bytes, 'a');
  head.copy(body, 0);
  tail.copy(body, bytes - tail.length);
  return body;
}

/**
 * Sends `body` (with Content-Length, or chunked when `chunked`), as a client that stops sending
 * once the answer arrives. Resolves with the status, or the socket error (a reset) when none came.
 */
function send(label, body, { chunked = false } = {}) {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${opts.key}` };
    if (!chunked) headers['content-length'] = String(body.length);
    const req = client.request(new URL(opts.path, base), { method: 'POST', headers, agent: false });
    let answered = false;
    let settled = false;
    const done = (outcome) => {
      if (settled) return;
      settled = true;
      resolve({ label, bytes: body.length, chunked, ...outcome });
    };
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text.length < 300 ? (text += d) : undefined));
      res.on('end', () => done({ status: res.statusCode, retryAfter: res.headers['retry-after'], body: text.slice(0, 200) }));
      res.on('error', (err) => done({ status: res.statusCode, error: err.code ?? err.message }));
    });
    req.on('error', (err) => done({ error: err.code ?? err.message }));
    const step = 256 * 1024;
    let offset = 0;
    const pump = () => {
      while (offset < body.length && !answered && !req.destroyed) {
        const chunk = body.subarray(offset, offset + step);
        offset += chunk.length;
        if (!req.write(chunk)) return req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

function rssOfPid(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const UNITS = { B: 1, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, KB: 1e3, MB: 1e6, GB: 1e9 };
function memOfContainer(name) {
  return new Promise((resolve) =>
    execFile('docker', ['stats', '--no-stream', '--format', '{{.MemUsage}}', name], { timeout: 10_000 }, (err, out) => {
      const m = err ? null : out.trim().match(/^([\d.]+)\s*([KMG]?i?B)/i);
      resolve(m ? Number(m[1]) * UNITS[m[2].toUpperCase()] : undefined);
    }),
  );
}

/** Samples memory until stopped; `docker stats` takes about a second per call, /proc far less. */
function sampler() {
  const samples = [];
  let running = true;
  const read = async () => (opts.container ? memOfContainer(opts.container) : opts.pid ? rssOfPid(opts.pid) : undefined);
  const loop = (async () => {
    while (running) {
      const v = await read();
      if (v !== undefined) samples.push(v);
      await new Promise((r) => setTimeout(r, Number(opts['sample-ms'])));
    }
  })();
  return {
    read,
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

const mib = (b) => (b === undefined ? 'n/a' : `${(b / 1024 ** 2).toFixed(1)} MiB`);

async function main() {
  if (!opts.pid && !opts.container) process.stderr.write('no --pid or --container: memory is not measured\n');
  const large = chatBody(Number(opts.size));
  const over = chatBody(Number(opts.over));
  const memory = sampler();
  const before = await memory.read();
  const started = Date.now();
  // The burst, and one ordinary call sent while it is in flight; then the bodies over the limit, one at a time.
  const burst = Array.from({ length: concurrency }, (_, i) => send(`large #${i + 1}`, large));
  await new Promise((r) => setTimeout(r, 200));
  const small = send('small, during the burst', chatBody(200));
  const results = await Promise.all([...burst, small]);
  results.push(await send('over the limit, Content-Length', over));
  results.push(await send('over the limit, chunked', over, { chunked: true }));
  const burstMs = Date.now() - started;
  // The gateway stays idle now; what it still holds after a while is what it keeps.
  await new Promise((r) => setTimeout(r, Number(opts['settle-ms'])));
  const samples = await memory.stop();
  const after = await memory.read();
  const peak = samples.length ? Math.max(...samples) : undefined;

  const counts = {};
  for (const r of results) {
    const key = r.status ? String(r.status) : `error ${r.error}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const report = {
    target: { url: opts.url, path: opts.path, pid: opts.pid, container: opts.container },
    bodies: { concurrent: concurrency, sizeMB: Number(opts.size) / MB, overMB: Number(opts.over) / MB },
    burstMs,
    counts,
    memory: { before, peak, after, settleMs: Number(opts['settle-ms']) },
    results,
  };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `${concurrency} x ${report.bodies.sizeMB} MB JSON at once (and a 200-byte call during them), then 2 x ${report.bodies.overMB} MB (Content-Length, chunked), to ${opts.url}${opts.path}\n`,
  );
  for (const r of results) {
    const what = r.status ? `${r.status}${r.retryAfter ? ` retry-after ${r.retryAfter}` : ''} ${r.body ?? ''}` : `no answer: ${r.error}`;
    process.stdout.write(`  ${r.label.padEnd(32)} ${what}\n`);
  }
  process.stdout.write(`statuses: ${JSON.stringify(counts)} in ${burstMs} ms\n`);
  process.stdout.write(`RSS: before ${mib(before)}, peak ${mib(peak)}, ${report.memory.settleMs / 1000} s after the burst ${mib(after)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
