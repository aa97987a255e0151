import OpenAI, { toFile } from 'openai';
import { KEYS, INLINE_PAYLOAD_MAX_BYTES } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { ffprobe, ROUND_TRIP_SENTENCES, wordAccuracy } from './audio-check';
import { AudioStack, startAudioStack } from './support/audio-stack';

let stack: AudioStack;

beforeAll(async () => {
  stack = await startAudioStack();
}, 240_000);
afterAll(async () => {
  if (process.env.AUDIO_TEST_LOGS)
    for (const line of stack?.audio.output().split('\n') ?? []) if (/"level":(40|50)/.test(line)) process.stdout.write(`${line}\n`);
  if (process.env.AUDIO_TEST_LOGS)
    for (const line of stack?.gateway.output().split('\n') ?? []) if (/"level":(40|50)/.test(line)) process.stdout.write(`${line}\n`);
  await stack?.stop();
});

const auth = (key = stack.adminKey) => ({ authorization: `Bearer ${key}` });

async function post(path: string, body: unknown, key?: string): Promise<Response> {
  return fetch(`${stack.api}${path}`, { method: 'POST', headers: { ...auth(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function transcribe(file: Buffer | null, fields: Record<string, string> = {}, name = 'speech.wav'): Promise<Response> {
  const form = new FormData();
  if (file) form.set('file', new Blob([file]), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return fetch(`${stack.api}/audio/transcriptions`, { method: 'POST', headers: auth(), body: form });
}

async function speech(body: Record<string, unknown>): Promise<Buffer> {
  const res = await post('/audio/speech', { model: 'svc-flite', ...body });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function balanceUsd(): Promise<number> {
  const res = await fetch(`${stack.api}/billing/balance`, { headers: auth() });
  const body = (await res.json()) as { balances: { usd: number } };
  return body.balances.usd;
}

/** The balance once earlier requests' settlements (batched, in the background) have landed: two reads 300 ms apart agree. */
async function steadyBalanceUsd(): Promise<number> {
  let last = await balanceUsd();
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await balanceUsd();
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** Waits until the balance moves away from `before` (settlement runs in the background) and stays put. */
async function balanceAfter(before: number): Promise<number> {
  let after = before;
  for (let i = 0; i < 100 && after === before; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await balanceUsd();
  }
  await new Promise((r) => setTimeout(r, 300));
  return balanceUsd();
}

const nano = (usd: number) => Math.round(usd * 1e9);

describe('GET /models', () => {
  it('lists the speech model with its voices and formats, and the transcription model', async () => {
    const tts = (await (await fetch(`${stack.api}/models?type=tts`)).json()) as {
      data: Array<{ id: string; model_spec: { constraints: Record<string, unknown> } }>;
    };
    const flite = tts.data.find((m) => m.id === 'svc-flite');
    expect(flite?.model_spec.constraints).toMatchObject({
      voices: ['slt', 'awb', 'rms', 'kal16'],
      default_voice: 'slt',
      supported_formats: ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'],
    });
    const asr = (await (await fetch(`${stack.api}/models?type=asr`)).json()) as { data: Array<{ id: string }> };
    expect(asr.data.map((m) => m.id)).toContain('svc-pocketsphinx');
  });
});

describe('POST /audio/speech', () => {
  it('returns mp3 bytes with the audio content type, model headers and the text spoken', async () => {
    const res = await post('/audio/speech', { model: 'svc-flite', input: 'Hello from the audio service.', voice: 'slt' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('x-svc-model-id')).toBe('svc-flite');
    expect(res.headers.get('cf-ray')).toBeTruthy();
    const probed = ffprobe(Buffer.from(await res.arrayBuffer()));
    expect(probed.codec).toBe('mp3');
    expect(probed.durationS).toBeGreaterThan(1.2);
  });

  it.each([
    ['wav', 'audio/wav', 'pcm_s16le'],
    ['flac', 'audio/flac', 'flac'],
    ['opus', 'audio/opus', 'opus'],
    ['aac', 'audio/aac', 'aac'],
  ])('response_format %s is %s', async (format, type, codec) => {
    const res = await post('/audio/speech', { model: 'svc-flite', input: 'Format check.', response_format: format });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(ffprobe(Buffer.from(await res.arrayBuffer())).codec).toBe(codec);
  });

  it('answers 400 for an unknown voice, listing the valid ones', async () => {
    const res = await post('/audio/speech', { model: 'svc-flite', input: 'Hi.', voice: 'nonesuch' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; details: { voice: { _errors: string[] } } };
    expect(body.error).toMatch(/nonesuch/);
    expect(body.error).toMatch(/slt, awb, rms, kal16, alloy/);
    expect(body.details.voice._errors[0]).toMatch(/Valid voices/);
  });

  it.each([
    ['empty input', { input: '' }, 'input'],
    ['4097 characters', { input: 'x'.repeat(4097) }, 'input'],
    ['speed 5', { input: 'Hi.', speed: 5 }, 'speed'],
    ['speed 0.1', { input: 'Hi.', speed: 0.1 }, 'speed'],
    ['format ogg', { input: 'Hi.', response_format: 'ogg' }, 'response_format'],
    ['an unknown field', { input: 'Hi.', unknown_field: 1 }, ''],
  ])('answers 400 for %s', async (_name, body, field) => {
    const res = await post('/audio/speech', { model: 'svc-flite', ...body });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; details: Record<string, unknown> };
    if (field) expect(json.details[field]).toBeDefined();
  });

  it('answers 404 for a model that is not a speech model', async () => {
    expect((await post('/audio/speech', { model: 'svc-pocketsphinx', input: 'Hi.' })).status).toBe(404);
  });

  it('streams chunks as they are produced (chunked transfer) that decode as one file', async () => {
    const input = Array.from({ length: 6 }, (_, i) => `This is sentence number ${i + 1} of the stream.`).join(' ');
    const res = await post('/audio/speech', { model: 'svc-flite', input, streaming: true, response_format: 'mp3' });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks.length).toBeGreaterThan(1);
    const probed = ffprobe(Buffer.concat(chunks));
    expect(probed.codec).toBe('mp3');
    expect(probed.durationS).toBeGreaterThan(8);
  });

  it('bills the input characters at the catalog price (1 USD per million characters)', async () => {
    const input = 'Billing counts every character of this sentence, spaces included.';
    const before = await steadyBalanceUsd();
    await speech({ input });
    const after = await balanceAfter(before);
    expect(nano(before - after)).toBe(input.length * 1_000);
  });

  it('speaks OpenAI voice names as the mapped Flite voice (alloy is slt, onyx is kal16)', async () => {
    const input = 'The same words in two voices.';
    expect((await speech({ input, voice: 'alloy', response_format: 'wav' })).equals(await speech({ input, voice: 'slt', response_format: 'wav' }))).toBe(true);
    expect((await speech({ input, voice: 'onyx', response_format: 'wav' })).equals(await speech({ input, voice: 'kal16', response_format: 'wav' }))).toBe(true);
  });

  it('accepts instructions (the embedded Flite ignores them) and answers 400 past 4096 characters', async () => {
    const wav = await speech({ input: 'Instructions are accepted.', voice: 'alloy', instructions: 'Speak calmly.', response_format: 'wav' });
    expect(ffprobe(wav).codec).toBe('pcm_s16le');
    const res = await post('/audio/speech', { model: 'svc-flite', input: 'Hi.', instructions: 'x'.repeat(4097) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: Record<string, unknown> }).details.instructions).toBeDefined();
  });

  it("speaks with OpenAI's default voice alloy through the official client", async () => {
    const client = new OpenAI({ baseURL: stack.api, apiKey: stack.adminKey, maxRetries: 0 });
    const res = await client.audio.speech.create({ model: 'tts-1', input: 'Hello from alloy.', voice: 'alloy', response_format: 'mp3' });
    expect(ffprobe(Buffer.from(await res.arrayBuffer())).codec).toBe('mp3');
  });

  it('maps the OpenAI tts-1 model for the official client', async () => {
    const client = new OpenAI({ baseURL: stack.api, apiKey: stack.adminKey, maxRetries: 0 });
    const res = await client.audio.speech.create({ model: 'tts-1', input: 'Compatible.', voice: 'slt' as never, response_format: 'wav' });
    expect(ffprobe(Buffer.from(await res.arrayBuffer())).codec).toBe('pcm_s16le');
  });
});

describe('POST /audio/transcriptions', () => {
  const sentence = 'Please open the door for me. The weather is nice today.';
  let wav: Buffer;
  beforeAll(async () => {
    wav = await speech({ input: sentence, response_format: 'wav' });
  });

  it('transcribes a wav upload (json) with the duration', async () => {
    const res = await transcribe(wav, { model: 'svc-pocketsphinx' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; duration: number; timestamps?: unknown };
    expect(wordAccuracy(sentence, body.text)).toBeGreaterThanOrEqual(0.7);
    expect(body.duration).toBeCloseTo(ffprobe(wav).durationS, 1);
    expect(body.timestamps).toBeUndefined();
  });

  it('takes uploads too large for a NATS message through the blob store', async () => {
    const long = await speech({ input: ROUND_TRIP_SENTENCES.join(' '), response_format: 'wav' });
    expect(long.length).toBeGreaterThan(INLINE_PAYLOAD_MAX_BYTES);
    const res = await transcribe(long, { model: 'svc-pocketsphinx' });
    expect(res.status).toBe(200);
    expect(wordAccuracy(ROUND_TRIP_SENTENCES.join(' '), ((await res.json()) as { text: string }).text)).toBeGreaterThanOrEqual(0.8);
  });

  it('adds word and segment timestamps on request', async () => {
    const res = await transcribe(wav, { model: 'svc-pocketsphinx', timestamps: 'true' });
    const body = (await res.json()) as { timestamps: { word: Array<{ word: string; start: number; end: number }>; segment: Array<{ text: string }> } };
    expect(body.timestamps.word.length).toBeGreaterThan(5);
    for (const w of body.timestamps.word) expect(w.end).toBeGreaterThan(w.start);
    expect(body.timestamps.segment.length).toBeGreaterThanOrEqual(1);
  });

  it('answers text/plain for response_format=text and an mp3 upload', async () => {
    const mp3 = await speech({ input: 'Thank you very much.', response_format: 'mp3' });
    const res = await transcribe(mp3, { model: 'svc-pocketsphinx', response_format: 'text' }, 'speech.mp3');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/thank you/);
  });

  it('serves the official OpenAI client (whisper-1, verbose_json with words)', async () => {
    const client = new OpenAI({ baseURL: stack.api, apiKey: stack.adminKey, maxRetries: 0 });
    const result = await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(wav, 'speech.wav'),
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    });
    expect(result.text.length).toBeGreaterThan(10);
    expect(result.words?.length).toBeGreaterThan(5);
    expect(result.duration).toBeGreaterThan(2);
  });

  const CUE_TIMES = /^(\d{2}):(\d{2}):(\d{2})[,.](\d{3}) --> (\d{2}):(\d{2}):(\d{2})[,.](\d{3})$/;
  const seconds = (m: RegExpMatchArray, at: number) => Number(m[at]) * 3600 + Number(m[at + 1]) * 60 + Number(m[at + 2]) + Number(m[at + 3]) / 1000;

  it('answers SubRip (srt) with numbered cues timed inside the audio, through the official client', async () => {
    const client = new OpenAI({ baseURL: stack.api, apiKey: stack.adminKey, maxRetries: 0 });
    const srt = (await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(wav, 'speech.wav'),
      response_format: 'srt',
    })) as unknown as string;
    const cues = srt.trim().split(/\n\n+/);
    expect(cues.length).toBeGreaterThanOrEqual(1);
    let previousEnd = 0;
    cues.forEach((cue, i) => {
      const [index, times, ...text] = cue.split('\n');
      expect(index).toBe(String(i + 1));
      const m = times.match(CUE_TIMES)!;
      expect(times).toContain(',');
      expect(seconds(m, 1)).toBeGreaterThanOrEqual(previousEnd - 0.001);
      expect(seconds(m, 5)).toBeGreaterThan(seconds(m, 1));
      expect(seconds(m, 5)).toBeLessThanOrEqual(ffprobe(wav).durationS + 0.1);
      previousEnd = seconds(m, 5);
      expect(text.join(' ').length).toBeGreaterThan(0);
    });
    expect(wordAccuracy(sentence, cues.map((c) => c.split('\n').slice(2).join(' ')).join(' '))).toBeGreaterThanOrEqual(0.7);
  });

  it('answers WebVTT (vtt) as text/plain with the header and dotted cue times', async () => {
    const res = await transcribe(wav, { model: 'svc-pocketsphinx', response_format: 'vtt' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const [header, ...cues] = (await res.text()).trim().split(/\n\n+/);
    expect(header).toBe('WEBVTT');
    expect(cues.length).toBeGreaterThanOrEqual(1);
    for (const cue of cues) expect(cue.split('\n')[0]).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}$/);
  });

  it("gives verbose_json segments OpenAI's full shape, and words only when word granularity is asked for", async () => {
    const res = await transcribe(wav, { model: 'svc-pocketsphinx', response_format: 'verbose_json' });
    const body = (await res.json()) as { task: string; language: string; words?: unknown; segments: Array<Record<string, unknown>> };
    expect(body).toMatchObject({ task: 'transcribe', language: 'english' });
    expect(body.words).toBeUndefined();
    expect(body.segments.length).toBeGreaterThanOrEqual(1);
    body.segments.forEach((s, i) => {
      expect(s).toEqual({
        id: i,
        seek: expect.any(Number),
        start: expect.any(Number),
        end: expect.any(Number),
        text: expect.any(String),
        tokens: expect.any(Array),
        temperature: 0,
        avg_logprob: expect.any(Number),
        compression_ratio: expect.any(Number),
        no_speech_prob: expect.any(Number),
      });
      expect(s.compression_ratio as number).toBeGreaterThan(0);
    });
    const words = (await (
      await transcribe(wav, { model: 'svc-pocketsphinx', response_format: 'verbose_json', 'timestamp_granularities[]': 'word' })
    ).json()) as {
      words: unknown[];
      segments?: unknown[];
    };
    expect(words.words.length).toBeGreaterThan(5);
    expect(words.segments).toBeUndefined();
  });

  it.each([
    ['an empty file', Buffer.alloc(0), /empty/],
    ['a text file', Buffer.from('not audio at all, just words '.repeat(40)), /not audio/],
    ['a truncated mp3', null, /truncated/],
  ])('answers 400 for %s', async (_name, file, message) => {
    const bytes = file ?? (await speech({ input: sentence, response_format: 'mp3' })).subarray(0, 600);
    const res = await transcribe(bytes, { model: 'svc-pocketsphinx' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; details: { file: { _errors: string[] } } };
    expect(body.error).toMatch(message);
    expect(body.details.file._errors.length).toBe(1);
  });

  it('answers 400 without a file and 415 for a JSON body', async () => {
    const missing = await transcribe(null, { model: 'svc-pocketsphinx' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { details: Record<string, unknown> }).details.file).toBeDefined();
    expect((await post('/audio/transcriptions', { model: 'svc-pocketsphinx' })).status).toBe(415);
  });

  it('bills the audio duration at the catalog price (0.0001 USD per second)', async () => {
    const before = await steadyBalanceUsd();
    const res = await transcribe(wav, { model: 'svc-pocketsphinx' });
    expect(res.status).toBe(200);
    const { duration } = (await res.json()) as { duration: number };
    expect(Math.abs(duration - ffprobe(wav).durationS)).toBeLessThan(0.02);
    const after = await balanceAfter(before);
    // 0.0001 USD per second = 100 nano-USD per millisecond of the duration the service measured.
    expect(nano(before - after)).toBe(Math.round(duration * 1000) * 100);
  });
});

describe('POST /audio/translations', () => {
  const sentence = 'Thank you very much for your help.';
  let wav: Buffer;
  beforeAll(async () => {
    wav = await speech({ input: sentence, response_format: 'wav' });
  });

  async function translate(file: Buffer | null, fields: Record<string, string> = {}): Promise<Response> {
    const form = new FormData();
    if (file) form.set('file', new Blob([file]), 'speech.wav');
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return fetch(`${stack.api}/audio/translations`, { method: 'POST', headers: auth(), body: form });
  }

  it('answers English audio with its English text, through the official client (json, then verbose_json)', async () => {
    const client = new OpenAI({ baseURL: stack.api, apiKey: stack.adminKey, maxRetries: 0 });
    const result = await client.audio.translations.create({ model: 'whisper-1', file: await toFile(wav, 'speech.wav') });
    expect(wordAccuracy(sentence, result.text)).toBeGreaterThanOrEqual(0.7);
    const verbose = (await client.audio.translations.create({
      model: 'whisper-1',
      file: await toFile(wav, 'speech.wav'),
      response_format: 'verbose_json',
    })) as unknown as { segments?: unknown[] };
    expect(verbose).toMatchObject({ task: 'translate', language: 'english' });
    expect(verbose.segments?.length).toBeGreaterThanOrEqual(1);
  });

  it('answers srt for translations too', async () => {
    const res = await translate(wav, { model: 'svc-pocketsphinx', response_format: 'srt' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await res.text()).split('\n').slice(0, 2)).toEqual(['1', expect.stringMatching(/^\d{2}:\d{2}:\d{2},\d{3} --> /)]);
  });

  it('answers 400 for a spoken language the English-only recognizer does not know, naming it', async () => {
    const res = await translate(wav, { model: 'svc-pocketsphinx', language: 'fr' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; details: { language: { _errors: string[] } } };
    expect(body.error).toMatch(/en speech only.*"fr"/);
    expect(body.details.language._errors.length).toBe(1);
    expect((await translate(wav, { model: 'svc-pocketsphinx', language: 'en' })).status).toBe(200);
  });

  it('answers 400 without a file, for timestamp fields it does not take and a bad format; 415 for JSON', async () => {
    expect((await translate(null, { model: 'svc-pocketsphinx' })).status).toBe(400);
    expect((await translate(wav, { model: 'svc-pocketsphinx', timestamps: 'true' })).status).toBe(400);
    const bad = await translate(wav, { model: 'svc-pocketsphinx', response_format: 'xml' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: Record<string, unknown> }).details.response_format).toBeDefined();
    expect((await post('/audio/translations', { model: 'svc-pocketsphinx' })).status).toBe(415);
  });
});

describe('POST /audio/voices on the embedded engine', () => {
  it('answers 400: Flite cannot clone voices', async () => {
    const sample = await speech({ input: 'A voice sample of a few words.', response_format: 'wav' });
    const form = new FormData();
    form.set('file', new Blob([sample]), 'sample.wav');
    form.set('model', 'svc-flite');
    const res = await fetch(`${stack.api}/audio/voices`, { method: 'POST', headers: auth(), body: form });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; details: { model: { _errors: string[] } } };
    expect(body.error).toMatch(/svc-flite cannot clone voices/);
    expect(body.details.model._errors.length).toBe(1);
  });
});

describe('audio rate limit', () => {
  it("answers 429 past the key's audio requests per minute", async () => {
    const { rows } = await stack.sql.query<{ id: string }>('SELECT id FROM accounts LIMIT 1');
    const rpc = new RpcClient(stack.nc, 10_000);
    const created = await rpc.send(KEYS.CREATE, {
      accountId: rows[0].id,
      apiKeyType: 'INFERENCE',
      description: 'audio rate limit',
      expiresAt: null,
      consumptionLimits: { usd: null, diem: null },
      limitPeriod: 'EPOCH',
      modelPrivacy: 'ALL',
    });
    await stack.sql.query('INSERT INTO api_key_rate_limits (api_key_id, target, rpm, tpm, rpd) VALUES ($1, $2, $3, NULL, NULL)', [created.data.id, 'audio', 2]);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post('/audio/speech', { model: 'svc-flite', input: 'Hi.', response_format: 'wav' }, created.apiKey);
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
