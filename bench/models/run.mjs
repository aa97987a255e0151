// Throughput of the zoo models with each engine called directly, and through the HTTP API (chat,
// images, embeddings) when a running platform is given. Loads the built engines from dist/, so run `npm run build` first:
//   npm run bench:models [-- --url http://127.0.0.1:8080 --key <admin key>]
// Writes bench/models/last-run.json and prints a Markdown table for bench/RESULTS.md.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { AbortController } = globalThis;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (p) => require(path.join(root, 'dist', p));
const { loadCatalog } = require('@svc/catalog');
const { EmbeddedLlamaEngine } = dist('apps/chat/src/engines/embedded/embedded-llama.engine.js');
const { WordVectorsEngine } = dist('apps/chat/src/engines/embeddings/word-vectors.engine.js');
const { OnnxDiffusionEngine } = dist('apps/media/src/engines/diffusion/onnx-diffusion.engine.js');

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? undefined : args[i + 1];
};
const modelsDir = process.env.SVC_MODELS_DIR ?? path.join(root, 'models');
const catalog = loadCatalog();
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
/** Chat requests per row (--requests). */
const REQUESTS = Number(arg('requests') ?? 12);
const PROMPTS = ['What is a lantern?', 'Tell me about the sea.', 'Give me a verse about mercy.', 'Tell me something wise.', 'What does it mean to wander?', 'What is a river?'];
const results = { date: new Date().toISOString(), host: { cpus: os.cpus().length, model: os.cpus()[0]?.model, load: os.loadavg().map((v) => +v.toFixed(2)) }, rows: [] };
const row = (r) => {
  results.rows.push(r);
  process.stderr.write(`[bench] ${JSON.stringify(r)}\n`);
};

async function chatDirect(concurrency, gguf, contextSize = 2048) {
  const model = gguf ? { id: path.basename(gguf), engine: { file: path.resolve(gguf), contextSize } } : catalog.resolve('default', 'text');
  const modelPath = path.resolve(modelsDir, model.engine.file);
  const engine = new EmbeddedLlamaEngine({ modelPath, contextSize: model.engine.contextSize ?? 256, maxParallel: concurrency, maxQueue: 64, logger: quiet });
  await engine.ready();
  await engine.generate({ messages: [{ role: 'user', content: 'Hi' }], maxTokens: 8, signal: new AbortController().signal });
  const started = performance.now();
  let tokens = 0;
  const jobs = [];
  for (let i = 0; i < REQUESTS; i++) {
    jobs.push(
      engine
        .generate({ messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }], maxTokens: 96, temperature: 0.8, seed: i, signal: new AbortController().signal })
        .then((r) => (tokens += r.completionTokens)),
    );
  }
  await Promise.all(jobs);
  const s = (performance.now() - started) / 1000;
  await engine.close();
  row({ model: model.id, path: 'engine', concurrency, requests: REQUESTS, completionTokens: tokens, seconds: +s.toFixed(2), tokensPerSecond: +(tokens / s).toFixed(0) });
}

async function chatApi(url, key, concurrency, modelId) {
  const model = modelId ? { id: modelId } : catalog.resolve('default', 'text');
  const once = async (i) => {
    const res = await fetch(`${url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: model.id, messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }], max_tokens: 96, temperature: 0.8, seed: i }),
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return (await res.json()).usage.completion_tokens;
  };
  await once(0);
  const started = performance.now();
  let tokens = 0;
  const queue = Array.from({ length: REQUESTS }, (_, i) => i);
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (queue.length) {
      const n = await once(queue.shift()); // not `tokens += await ...`: that reads tokens before the await and loses the other worker's count
      tokens += n;
    }
  }));
  const s = (performance.now() - started) / 1000;
  row({ model: model.id, path: 'api', concurrency, requests: REQUESTS, completionTokens: tokens, seconds: +s.toFixed(2), tokensPerSecond: +(tokens / s).toFixed(0) });
}

async function image() {
  const model = catalog.get('svc-zoo-image');
  const engine = new OnnxDiffusionEngine({ modelPath: path.join(modelsDir, model.engine.file), maxParallel: 1, maxQueue: 16 });
  try {
    await engine.ready();
  } catch (err) {
    row({ model: model.id, path: 'engine', skipped: err.message });
    return;
  }
  for (const steps of [20, 50]) {
    await engine.generate({ prompt: 'a red circle', seed: 0, steps: 2 });
    const n = 8;
    const started = performance.now();
    for (let i = 0; i < n; i++) await engine.generate({ prompt: 'a blue star on a white background', seed: i, steps, width: 256, height: 256 });
    const s = (performance.now() - started) / 1000;
    row({ model: model.id, path: 'engine', steps, size: '256x256 (32x32 native)', images: n, seconds: +s.toFixed(2), imagesPerMinute: +((n / s) * 60).toFixed(1) });
  }
  await engine.close();
}

/** POSTs JSON to the running platform; the response body as a Buffer (binary images) or parsed JSON. */
async function post(url, key, route, body, binary = false) {
  const res = await fetch(`${url}/api/v1/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${route}: HTTP ${res.status}: ${await res.text()}`);
  return binary ? Buffer.from(await res.arrayBuffer()) : res.json();
}

async function imageApi(url, key) {
  const model = catalog.get('svc-zoo-image');
  const body = (seed, steps) => ({ model: model.id, prompt: 'a blue star on a white background', seed, steps, width: 256, height: 256, format: 'png', return_binary: true, hide_watermark: true, safe_mode: false });
  for (const steps of [20, 50]) {
    await post(url, key, 'image/generate', body(0, 2), true);
    const n = 8;
    const started = performance.now();
    for (let i = 0; i < n; i++) await post(url, key, 'image/generate', body(i, steps), true);
    const s = (performance.now() - started) / 1000;
    row({ model: model.id, path: 'api', steps, size: '256x256 (32x32 native)', images: n, seconds: +s.toFixed(2), imagesPerMinute: +((n / s) * 60).toFixed(1) });
  }
}

async function embeddingsApi(url, key) {
  const model = catalog.get('svc-zoo-embed');
  const inputs = Array.from({ length: 100 }, (_, i) => `${PROMPTS[i % PROMPTS.length]} The shepherd counted ${i} sheep on the hill.`);
  await post(url, key, 'embeddings', { model: model.id, input: inputs });
  const rounds = 20;
  const started = performance.now();
  for (let k = 0; k < rounds; k++) await post(url, key, 'embeddings', { model: model.id, input: inputs, encoding_format: 'base64' });
  const s = (performance.now() - started) / 1000;
  row({ model: model.id, path: 'api', batch: 100, requests: rounds, encoding: 'base64', seconds: +s.toFixed(3), embeddingsPerSecond: +((rounds * 100) / s).toFixed(0) });
}

async function embeddings() {
  const model = catalog.get('svc-zoo-embed');
  const engine = new WordVectorsEngine({ modelPath: path.join(modelsDir, model.engine.file) });
  const loadStarted = performance.now();
  await engine.ready();
  const loadMs = performance.now() - loadStarted;
  const inputs = Array.from({ length: 2000 }, (_, i) => `${PROMPTS[i % PROMPTS.length]} The shepherd counted ${i} sheep on the hill.`);
  engine.embed(inputs.slice(0, 100));
  const started = performance.now();
  for (let k = 0; k < 5; k++) engine.embed(inputs);
  const s = (performance.now() - started) / 1000;
  row({ model: model.id, path: 'engine', inputs: 10000, avgWords: 14, seconds: +s.toFixed(3), embeddingsPerSecond: +(10000 / s).toFixed(0), loadMs: +loadMs.toFixed(0) });
}

const only = arg('only');
const url = arg('url');
const key = arg('key') ?? process.env.SVC_ADMIN_KEY;
if (!only || only === 'chat') {
  await chatDirect(1);
  await chatDirect(2);
  // another chat GGUF, e.g. the chat model v2 before it serves: --chat-gguf tmp/zoo/chat-v2-run/svc-zoo-chat-v2.gguf
  // --chat-gguf-context: its context (v1: 256)
  if (arg('chat-gguf')) {
    await chatDirect(1, arg('chat-gguf'), Number(arg('chat-gguf-context') ?? 2048));
    await chatDirect(2, arg('chat-gguf'), Number(arg('chat-gguf-context') ?? 2048));
  }
  // --api-models a,b: these model ids of the running platform (default: its default text model)
  for (const modelId of url ? (arg('api-models')?.split(',') ?? [undefined]) : []) {
    await chatApi(url, key, 1, modelId);
    await chatApi(url, key, 2, modelId);
  }
}
if (!only || only === 'image') {
  await image();
  if (url) await imageApi(url, key);
}
if (!only || only === 'embeddings') {
  await embeddings();
  if (url) await embeddingsApi(url, key);
}
results.host.loadAfter = os.loadavg().map((v) => +v.toFixed(2));
fs.writeFileSync(path.join(root, 'bench/models/last-run.json'), JSON.stringify(results, null, 2) + '\n');
