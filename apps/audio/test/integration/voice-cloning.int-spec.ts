import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { DEFAULT_CATALOG_PATH } from '@svc/catalog';
import { ffprobe } from './audio-check';
import { AudioStack, startAudioStack } from './support/audio-stack';

/**
 * A small stand-in for a cloning TTS server speaking chatterbox-tts-api's protocol: a voice
 * library at `POST /v1/voices` (multipart `voice_name`, `voice_file`) and OpenAI's
 * `POST /v1/audio/speech`, where `voice` names a library voice. It answers that voice's sample
 * (a WAV) as the speech.
 */
interface FakeCloner {
  url: string;
  voices: Map<string, Buffer>;
  speechBodies: Array<Record<string, unknown>>;
  server: Server;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function startFakeCloner(): Promise<FakeCloner> {
  const voices = new Map<string, Buffer>();
  const speechBodies: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const reply = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (req.method === 'POST' && req.url === '/v1/voices') {
        const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': req.headers['content-type']! }, body }).formData();
        const name = form.get('voice_name');
        const file = form.get('voice_file');
        if (typeof name !== 'string' || !(file instanceof Blob)) return reply(422, { detail: 'voice_name and voice_file are required' });
        voices.set(name, Buffer.from(await file.arrayBuffer()));
        return reply(201, { message: `Voice '${name}' uploaded successfully`, voice: { name } });
      }
      if (req.method === 'POST' && req.url === '/v1/audio/speech') {
        const json = JSON.parse(body.toString()) as Record<string, unknown>;
        speechBodies.push(json);
        const voice = voices.get(String(json.voice));
        if (!voice) return reply(400, { error: { message: `Voice '${String(json.voice)}' not found` } });
        return res.writeHead(200, { 'content-type': 'audio/wav' }).end(voice);
      }
      reply(404, { detail: 'Not Found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, voices, speechBodies, server };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-audio-cloning-'));
let stack: AudioStack;
let fake: FakeCloner;

beforeAll(async () => {
  fake = await startFakeCloner();
  const catalog = parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as { models: Array<Record<string, unknown>> };
  catalog.models.push({
    id: 'test-cloning-tts',
    name: 'Cloning TTS (fake upstream)',
    type: 'tts',
    engine: { kind: 'openai-compatible', baseUrl: fake.url, model: 'chatterbox' },
    privacy: 'private',
    pricing: { input: { usd: 1.0, diem: 1.0 } },
    constraints: {
      voices: ['default'],
      default_voice: 'default',
      supported_formats: ['wav'],
      default_format: 'wav',
      voice_cloning: { mode: 'zero_shot', accepted_formats: ['wav', 'mp3'], min_sample_seconds: 5, retention_days: 7 },
    },
  });
  const file = path.join(dir, 'models.yaml');
  writeFileSync(file, stringify(catalog));
  stack = await startAudioStack({ audioEnv: { SVC_CATALOG_PATH: file }, gatewayEnv: { SVC_CATALOG_PATH: file } });
}, 240_000);
afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => fake?.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${stack.adminKey}` });

async function speak(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${stack.api}/audio/speech`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function clone(file: Buffer | null, model: string, name = 'sample.wav'): Promise<Response> {
  const form = new FormData();
  if (file) form.set('file', new Blob([file]), name);
  form.set('model', model);
  return fetch(`${stack.api}/audio/voices`, { method: 'POST', headers: auth(), body: form });
}

async function flite(input: string, format: string): Promise<Buffer> {
  const res = await speak({ model: 'svc-flite', input, response_format: format });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('POST /audio/voices through a cloning upstream', () => {
  let sample: Buffer;
  beforeAll(async () => {
    sample = await flite('This is my voice. Please speak every sentence the way I do.', 'wav');
  });

  it('uploads the sample to the server under a vv_ handle, and speech in that voice goes to it with the instructions', async () => {
    const res = await clone(sample, 'test-cloning-tts');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; model: string };
    expect(body).toEqual({ id: expect.stringMatching(/^vv_[0-9a-f]{24}$/), model: 'test-cloning-tts' });
    // The upstream keeps it under a name bound to this account, never the handle itself.
    expect(fake.voices.has(body.id)).toBe(false);
    expect([...fake.voices.values()].some((v) => v.equals(sample))).toBe(true);
    const [stored] = [...fake.voices.keys()];

    const spoken = await speak({ model: 'test-cloning-tts', input: 'Now in my voice.', voice: body.id, instructions: 'Cheerful.' });
    expect(spoken.status).toBe(200);
    expect(ffprobe(Buffer.from(await spoken.arrayBuffer())).codec).toBe('pcm_s16le');
    expect(fake.speechBodies.at(-1)).toMatchObject({ model: 'chatterbox', voice: stored, input: 'Now in my voice.', instructions: 'Cheerful.' });
  });

  it('answers 400 for a sample in a container the model does not accept (flac), and for a file that is not audio', async () => {
    const flac = await clone(await flite('A flac sample.', 'flac'), 'test-cloning-tts', 'sample.flac');
    expect(flac.status).toBe(400);
    const body = (await flac.json()) as { error: string; details: { file: { _errors: string[] } } };
    expect(body.error).toMatch(/accepts voice samples in wav, mp3; this file is flac/);
    const text = await clone(Buffer.from('not audio at all '.repeat(50)), 'test-cloning-tts', 'sample.wav');
    expect(text.status).toBe(400);
    expect(((await text.json()) as { details: Record<string, unknown> }).details.file).toBeDefined();
    expect(fake.voices.size).toBe(1);
  });

  it('answers 400 without a file, 404 for an unknown model, 415 for a JSON body', async () => {
    const missing = await clone(null, 'test-cloning-tts');
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { details: Record<string, unknown> }).details.file).toBeDefined();
    expect((await clone(sample, 'no-such-model')).status).toBe(404);
    const json = await fetch(`${stack.api}/audio/voices`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test-cloning-tts' }),
    });
    expect(json.status).toBe(415);
  });

  it('answers 400 for a clone handle on a model that does not clone, and for a malformed handle', async () => {
    const onFlite = await speak({ model: 'svc-flite', input: 'Hi.', voice: `vv_${'a'.repeat(24)}` });
    expect(onFlite.status).toBe(400);
    expect(((await onFlite.json()) as { details: Record<string, unknown> }).details.voice).toBeDefined();
    expect((await speak({ model: 'test-cloning-tts', input: 'Hi.', voice: 'vv_../../etc' })).status).toBe(400);
  });
});
