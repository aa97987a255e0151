import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from 'nats';
import { serviceMigrationsDir } from '@svc/database';
import { createTestDatabase, freePort, runBench, startFakeBilling, startPrivateNats, startPrivateRedis } from '@svc/testing';
import { DirectEngines, wavSeconds } from './direct-engines';
import { RtfSummary, summarize } from './rtf';
import { startFromSources } from './stack';

const USAGE = `Usage: node -r ./apps/gateway/test/integration/support/register-ts.js bench/audio/src/main.ts [--runs <n>]
  --runs  measured runs per engine and path (default 5, after one warm-up)`;
const say = (msg: string) => process.stderr.write(`[bench:audio] ${msg}\n`);
const cleanups: Array<() => Promise<void>> = [];

const TEXTS = [
  'The weather is nice today. We will walk to the park after lunch. Please bring a warm coat.',
  'The train leaves at seven in the morning. It arrives in the city two hours later. Tickets are sold at the station.',
  'She reads a book every night before bed. Her favourite stories are about the sea. She has read them all twice.',
  'Thank you very much for your help with the move. The new house is bigger than the old one. The garden needs some work.',
  'Our meeting is on Tuesday at ten. Please send the report before then. Call me if anything changes.',
];

interface Sample {
  ms: number;
  audioSeconds: number;
}

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const runs = Math.max(1, Number(values.runs ?? 5));

  say('starting NATS, Redis, keys, audio and gateway from sources (billing is a fake that grants everything)');
  const nats = await startPrivateNats();
  cleanups.push(() => nats.stop());
  const redis = await startPrivateRedis();
  cleanups.push(() => redis.stop());
  const keysDb = await createTestDatabase('benchaud', { migrationsDir: serviceMigrationsDir('keys') });
  cleanups.push(() => keysDb.drop());
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  const stopBilling = startFakeBilling(nc);
  cleanups.push(async () => stopBilling());
  const adminKey = `svc_bench_aud_${randomBytes(18).toString('base64url')}`;
  const common = { NATS_URL: nats.url, REDIS_URL: redis.url, SVC_ADMIN_KEY: adminKey, LOG_LEVEL: 'info' };
  const port = await freePort();
  const start = async (...args: Parameters<typeof startFromSources>) => {
    const p = await startFromSources(...args);
    cleanups.push(() => p.stop());
  };
  await Promise.all([
    start('keys', 'apps/keys/src/main.ts', { ...common, KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false' }, 'keys service ready'),
    start('audio', 'apps/audio/src/main.ts', { ...common, AUDIO_JOBS_WORKER: 'false' }, 'audio service ready'),
    start(
      'gateway',
      'apps/gateway/src/main.ts',
      { ...common, PORT: String(port), HOST: '127.0.0.1', REDIS_KEY_PREFIX: 'svc_bench_audio:' },
      'gateway listening',
    ),
  ]);
  const api = `http://127.0.0.1:${port}/api/v1`;
  const auth = { authorization: `Bearer ${adminKey}` };
  const direct = new DirectEngines();
  cleanups.push(async () => direct.close());

  const speech = async (input: string, format: 'wav' | 'mp3'): Promise<Buffer> => {
    const res = await fetch(`${api}/audio/speech`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-flite', input, voice: 'slt', response_format: format }),
    });
    if (res.status !== 200) throw new Error(`speech answered ${res.status}: ${await res.text()}`);
    return Buffer.from(await res.arrayBuffer());
  };
  const transcribe = async (wav: Buffer): Promise<string> => {
    const form = new FormData();
    form.set('file', new Blob([wav]), 'speech.wav');
    form.set('model', 'svc-pocketsphinx');
    const res = await fetch(`${api}/audio/transcriptions`, { method: 'POST', headers: auth, body: form });
    if (res.status !== 200) throw new Error(`transcription answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { text: string }).text;
  };

  const samples: Record<string, Sample[]> = {
    'tts direct (Flite WASI, wav)': [],
    'tts api (wav)': [],
    'tts api (mp3)': [],
    'stt direct (pocketsphinx_continuous)': [],
    'stt api (json)': [],
  };
  // Warm-up: the first request of each path pays for process start and caches.
  const warm = direct.flite(TEXTS[0]);
  direct.pocketsphinx(warm);
  await speech(TEXTS[0], 'wav');
  await transcribe(warm);

  for (let i = 0; i < runs; i++) {
    const text = TEXTS[i % TEXTS.length];
    say(`run ${i + 1}/${runs}`);
    const d = await timed(() => direct.flite(text));
    const seconds = wavSeconds(d.value);
    samples['tts direct (Flite WASI, wav)'].push({ ms: d.ms, audioSeconds: seconds });
    const a = await timed(() => speech(text, 'wav'));
    samples['tts api (wav)'].push({ ms: a.ms, audioSeconds: wavSeconds(a.value) });
    const m = await timed(() => speech(text, 'mp3'));
    samples['tts api (mp3)'].push({ ms: m.ms, audioSeconds: wavSeconds(a.value) });
    const sd = await timed(() => direct.pocketsphinx(d.value));
    samples['stt direct (pocketsphinx_continuous)'].push({ ms: sd.ms, audioSeconds: seconds });
    const sa = await timed(() => transcribe(d.value));
    samples['stt api (json)'].push({ ms: sa.ms, audioSeconds: seconds });
  }

  const results: Record<string, RtfSummary> = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
  const lines = ['| path | runs | audio s | processing ms | RTF |', '|---|---:|---:|---:|---:|'];
  for (const [name, r] of Object.entries(results))
    lines.push(`| ${name} | ${r.runs} | ${r.audioSeconds.toFixed(1)} | ${r.processingMs.toFixed(0)} | ${r.rtf.toFixed(3)} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
  const out = path.join(__dirname, '..', 'last-run.json');
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), cpus: os.cpus().length, cpu: os.cpus()[0]?.model, loadavg: os.loadavg(), runs, results }, null, 2)}\n`,
  );
  say(`written to ${path.relative(process.cwd(), out)}`);
}

runBench('bench:audio', main, cleanups);
