// Embedded-engine throughput through the platform (HTTP gateway -> NATS -> chat service -> llama
// worker process) versus node-llama-cpp called directly in this process, and the prefix-cache
// speedup of a second turn. Runs from sources (no build):
//   nice node -r ./apps/gateway/test/integration/support/register-ts.js bench/chat/run.ts [--requests 8] [--max-tokens 120]
// Prints a Markdown table for bench/RESULTS.md and writes bench/chat/last-run.json.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '@svc/config';
import { ChatMessage } from '@svc/contracts';
import { writeTinyGguf } from '@svc/gguf';
import { EmbeddedLlamaEngine } from '../../apps/chat/src/engines/embedded/embedded-llama.engine';
import { startChatStack } from '../../apps/gateway/test/integration/support/chat-stack';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const REQUESTS = arg('requests', 8);
const MAX_TOKENS = arg('max-tokens', 120);
const SYSTEM = 'Be brief.';
const SEED = 7;
const CACHE_ROUNDS = 3;
const TEMPERATURE = 0.8;
const PROMPTS = [
  'What is a lantern?',
  'Tell me about the sea.',
  'Give me a verse about mercy.',
  'Tell me something wise.',
  'What does it mean to wander?',
  'What is a river?',
  'Who keeps the gate?',
  'Why do birds sing?',
];
type DirectRun = (options: Record<string, unknown>) => Promise<Run[]>;
/** A real dynamic import (TypeScript would turn `import()` into require(), which cannot load ESM). */
const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<{ directRun: DirectRun }>;

interface Model {
  id: string;
  file: string;
  contextSize: number;
}

interface Run {
  promptTokens: number;
  completionTokens: number;
  ms: number;
  cachedTokens?: number;
}

/** A long conversation whose first two messages are the previous request (what the cache keeps). */
function history(m: Model, tag: string): ChatMessage[] {
  const repeats = m.contextSize > 1024 ? 40 : m.contextSize > 512 ? 10 : 2;
  return [
    { role: 'system', content: `${tag} ${'The old library keeps a careful record of every book and every reader who ever came. '.repeat(repeats)}` },
    { role: 'user', content: 'Tell me about the first shelf.' },
    { role: 'assistant', content: 'It holds the oldest books.' },
    { role: 'user', content: 'And the next one?' },
  ];
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const tps = (runs: Run[]) => runs.reduce((s, r) => s + r.completionTokens, 0) / (runs.reduce((s, r) => s + r.ms, 0) / 1000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-chat-'));
  const modelsDir = path.join(dir, 'models');
  mkdirSync(modelsDir);
  writeTinyGguf(path.join(modelsDir, 'tiny.gguf'));
  const models: Model[] = [{ id: 'tiny', file: path.join(modelsDir, 'tiny.gguf'), contextSize: 1024 }];
  const zoo = path.join(REPO_ROOT, 'models/zoo/chat/svc-zoo-chat.gguf');
  if (existsSync(zoo)) models.unshift({ id: 'zoo', file: zoo, contextSize: 256 });
  // Random weights, ~20M parameters in its blocks: prompt evaluation costs enough to show what the prefix cache saves.
  writeTinyGguf(path.join(modelsDir, 'wide.gguf'), {
    embeddingLength: 512,
    blockCount: 8,
    headCount: 8,
    headCountKv: 8,
    feedForwardLength: 1408,
    contextLength: 2048,
    tensorType: 'f16',
  });
  const wide: Model = { id: 'wide', file: path.join(modelsDir, 'wide.gguf'), contextSize: 2048 };
  const cacheModels = [...models, wide];
  const catalog = `models:\n${cacheModels
    .map(
      (m) => `  - id: ${m.id}
    name: ${m.id}
    type: text
    engine: { kind: embedded-llama, file: "${m.file}", contextSize: ${m.contextSize}, maxParallel: 1, maxQueue: 8 }
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    maxCompletionTokens: ${MAX_TOKENS}
`,
    )
    .join('')}`;
  const stops: Array<() => Promise<unknown> | unknown> = [() => rmSync(dir, { recursive: true, force: true })];
  try {
    // 1. Direct, in this process (before the platform starts, so nothing else competes for the CPU).
    const threads = Math.max(1, os.availableParallelism() - 1);
    const { directRun } = await importEsm(pathToFileURL(path.join(__dirname, 'direct.mjs')).href);
    const direct: Record<string, Run[]> = {};
    for (const m of models) {
      const prompts = Array.from({ length: REQUESTS }, (_, i) => PROMPTS[i % PROMPTS.length]);
      await directRun({
        modelPath: m.file,
        contextSize: m.contextSize,
        threads,
        system: SYSTEM,
        prompts: prompts.slice(0, 2),
        maxTokens: MAX_TOKENS,
        seed: SEED,
        temperature: TEMPERATURE,
      });
      direct[m.id] = await directRun({
        modelPath: m.file,
        contextSize: m.contextSize,
        threads,
        system: SYSTEM,
        prompts,
        maxTokens: MAX_TOKENS,
        seed: SEED,
        temperature: TEMPERATURE,
      });
    }

    // 2. The chat service's engine in this process (worker process + IPC, no HTTP or NATS).
    const engineRuns: Record<string, Run[]> = {};
    const engineCache: Array<{ model: string; promptTokens: number; cachedTokens: number; coldMs: number; warmMs: number }> = [];
    for (const m of cacheModels) {
      const engine = new EmbeddedLlamaEngine({ modelPath: m.file, contextSize: m.contextSize, maxParallel: 1, threads, logger: quiet });
      await engine.ready();
      const gen = async (messages: ChatMessage[], maxTokens: number): Promise<Run> => {
        const started = performance.now();
        const r = await engine.generate({ messages, maxTokens, seed: SEED, temperature: TEMPERATURE, signal: new AbortController().signal }, () => undefined);
        return { promptTokens: r.promptTokens, completionTokens: r.completionTokens, ms: performance.now() - started, cachedTokens: r.cachedTokens };
      };
      const prompts = Array.from({ length: REQUESTS }, (_, i) => PROMPTS[i % PROMPTS.length]);
      if (m !== wide) {
        for (const p of prompts.slice(0, 2))
          await gen(
            [
              { role: 'system', content: SYSTEM },
              { role: 'user', content: `${p} (warm-up)` },
            ],
            MAX_TOKENS,
          );
        engineRuns[m.id] = [];
        for (const p of prompts)
          engineRuns[m.id].push(
            await gen(
              [
                { role: 'system', content: SYSTEM },
                { role: 'user', content: p },
              ],
              MAX_TOKENS,
            ),
          );
      }
      const cold: number[] = [];
      const warm: number[] = [];
      let last: Run | undefined;
      for (let i = 0; i < CACHE_ROUNDS; i++) {
        const base = history(m, `Session ${i}.`);
        await gen(base.slice(0, 2), 1);
        last = await gen(base, 1);
        warm.push(last.ms);
        cold.push((await gen(history(m, `Other ${i}.`), 1)).ms);
      }
      engineCache.push({ model: m.id, promptTokens: last!.promptTokens, cachedTokens: last!.cachedTokens ?? 0, coldMs: median(cold), warmMs: median(warm) });
      await engine.close();
    }

    // 3. The platform: private NATS and Redis, fresh databases, fake billing, keys + chat + gateway from sources.
    const stack = await startChatStack({
      name: 'benchchat',
      catalog,
      chatEnv: { CHAT_SEED_CHARACTERS: 'false', SVC_SYSTEM_PROMPT: SYSTEM, LLAMA_THREADS: String(threads) },
      readyTimeoutMs: 120_000,
    });
    stops.push(() => stack.stop());
    const { inferenceKey: key } = stack;
    const api = `${stack.api}/chat/completions`;
    const stream = async (body: Record<string, unknown>): Promise<Run> => {
      const started = performance.now();
      const res = await fetch(api, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
      });
      const text = await res.text();
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      const usage = text
        .split('\n\n')
        .filter((e) => e.startsWith('data: {'))
        .map((e) => JSON.parse(e.slice(6)))
        .find((c) => c.usage)?.usage;
      return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, ms, cachedTokens: usage.prompt_tokens_details?.cached_tokens };
    };

    const platform: Record<string, Run[]> = {};
    for (const m of models) {
      const prompts = Array.from({ length: REQUESTS }, (_, i) => PROMPTS[i % PROMPTS.length]);
      for (const p of prompts.slice(0, 2))
        await stream({ model: m.id, messages: [{ role: 'user', content: `${p} (warm-up)` }], max_tokens: MAX_TOKENS, seed: SEED, temperature: TEMPERATURE });
      platform[m.id] = [];
      for (const p of prompts)
        platform[m.id].push(
          await stream({ model: m.id, messages: [{ role: 'user', content: p }], max_tokens: MAX_TOKENS, seed: SEED, temperature: TEMPERATURE }),
        );
    }

    // 4. Prefix cache: a turn whose history was evaluated by the previous request, versus the same-length prompt cold.
    const cache: Array<{ model: string; promptTokens: number; cachedTokens: number; coldMs: number; warmMs: number }> = [];
    for (const m of cacheModels) {
      const cold: number[] = [];
      const warm: number[] = [];
      let last: Run | undefined;
      for (let i = 0; i < CACHE_ROUNDS; i++) {
        const base = history(m, `Session ${i}.`);
        await stream({ model: m.id, messages: base.slice(0, 2), max_tokens: 1, prompt_cache_key: `s${i}` });
        last = await stream({ model: m.id, messages: base, max_tokens: 1, prompt_cache_key: `s${i}` });
        warm.push(last.ms);
        // The same length with nothing shared beyond the template's first tokens.
        cold.push((await stream({ model: m.id, messages: history(m, `Other ${i}.`), max_tokens: 1, prompt_cache_key: `c${i}` })).ms);
      }
      cache.push({ model: m.id, promptTokens: last!.promptTokens, cachedTokens: last!.cachedTokens ?? 0, coldMs: median(cold), warmMs: median(warm) });
    }

    const rows = models.map((m) => ({
      model: m.id,
      direct: tps(direct[m.id]),
      engine: tps(engineRuns[m.id]),
      platform: tps(platform[m.id]),
      ratio: tps(platform[m.id]) / tps(direct[m.id]),
      directRuns: direct[m.id],
      engineRuns: engineRuns[m.id],
      platformRuns: platform[m.id],
    }));
    const result = {
      date: new Date().toISOString(),
      host: { cpus: os.cpus().length, load: os.loadavg().map((v) => +v.toFixed(2)) },
      requests: REQUESTS,
      maxTokens: MAX_TOKENS,
      threads,
      rows,
      engineCache,
      cache,
    };
    writeFileSync(path.join(__dirname, 'last-run.json'), JSON.stringify(result, null, 2));
    console.log(
      `\nload average ${os
        .loadavg()
        .map((v) => v.toFixed(1))
        .join(' ')}, ${REQUESTS} requests x max ${MAX_TOKENS} tokens, ${threads} llama thread(s)`,
    );
    console.log('\n| model | direct tokens/s | engine (worker process) | platform (HTTP stream) | engine / direct | platform / direct |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows)
      console.log(
        `| ${r.model} | ${r.direct.toFixed(0)} | ${r.engine.toFixed(0)} | ${r.platform.toFixed(0)} | ${(r.engine / r.direct).toFixed(3)} | ${r.ratio.toFixed(3)} |`,
      );
    console.log('\n| model | path | prompt tokens | cached tokens | cold (ms, p50) | cached prefix (ms, p50) | speedup |');
    console.log('|---|---|---:|---:|---:|---:|---:|');
    const line = (where: string, c: (typeof cache)[number]) =>
      console.log(
        `| ${c.model} | ${where} | ${c.promptTokens} | ${c.cachedTokens} | ${c.coldMs.toFixed(1)} | ${c.warmMs.toFixed(1)} | ${(c.coldMs / c.warmMs).toFixed(2)}x |`,
      );
    for (const c of engineCache) line('engine', c);
    for (const c of cache) line('platform', c);
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
