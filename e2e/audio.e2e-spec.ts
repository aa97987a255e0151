import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import OpenAI, { toFile } from 'openai';
import { ffmpegPath } from '@svc/ffmpeg';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * Audio through the platform as `npm start` runs it (built `dist/`, every service): speech with
 * the embedded Flite engine, its transcription by PocketSphinx, and an asynchronous job.
 */
describe('audio end to end', () => {
  let platform: RunningPlatform;
  let client: OpenAI;

  beforeAll(async () => {
    // the video-transcription test's file server is on this machine: let the SSRF guard reach it
    platform = await startPlatform({ env: { OUTBOUND_ALLOWLIST: '127.0.0.1' } });
    client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 150_000);

  afterAll(async () => {
    await platform?.stop();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${platform.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('speaks and transcribes back with the OpenAI client', async () => {
    const text = 'Thank you very much for your help. The weather is nice today.';
    const speech = await client.audio.speech.create({ model: 'tts-1', input: text, voice: 'slt' as never, response_format: 'wav' });
    expect(speech.headers.get('content-type')).toBe('audio/wav');
    const wav = Buffer.from(await speech.arrayBuffer());
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    const result = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav, 'speech.wav') });
    expect(result.text).toMatch(/thank you/);
  });

  it("speaks with OpenAI's default voice alloy and transcribes to valid SRT cues", async () => {
    const text = 'Please open the door for me. The weather is nice today.';
    const speech = await client.audio.speech.create({ model: 'tts-1', input: text, voice: 'alloy', response_format: 'mp3' });
    expect(speech.headers.get('content-type')).toBe('audio/mpeg');
    const mp3 = Buffer.from(await speech.arrayBuffer());
    const srt = (await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(mp3, 'speech.mp3'),
      response_format: 'srt',
    })) as unknown as string;
    // The mp3 decodes (it was transcribed); its cues are numbered from 1 with SubRip times.
    const cues = srt.trim().split(/\n\n+/);
    expect(cues.length).toBeGreaterThanOrEqual(1);
    cues.forEach((cue, i) => {
      const [index, times, ...lines] = cue.split('\n');
      expect(index).toBe(String(i + 1));
      expect(times).toMatch(/^\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}$/);
      expect(lines.join(' ').length).toBeGreaterThan(0);
    });
    expect(srt.toLowerCase()).toMatch(/door|weather/);
  });

  it("takes OpenAI's newer model names and every voice of its speech API", async () => {
    const voices = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const;
    for (const voice of voices) {
      const response = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', input: 'Hello.', voice, response_format: 'wav' }).asResponse();
      expect([voice, response.status, response.headers.get('content-type')]).toEqual([voice, 200, 'audio/wav']);
      expect(response.headers.get('x-svc-model-id')).toBe('svc-flite');
      await response.arrayBuffer();
    }
    const speech = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', input: 'Thank you very much.', voice: 'marin', response_format: 'wav' });
    const wav = Buffer.from(await speech.arrayBuffer());
    for (const model of ['gpt-4o-transcribe', 'gpt-4o-mini-transcribe']) {
      const { data, response } = await client.audio.transcriptions.create({ model, file: await toFile(wav, 'speech.wav') }).withResponse();
      expect(response.headers.get('x-svc-model-id')).toBe('svc-pocketsphinx');
      expect(data.text).toMatch(/thank you/);
    }
  });

  it('verbose_json with timestamp_granularities word and segment answers both; srt and vtt come as text/plain', async () => {
    const speech = await client.audio.speech.create({
      model: 'tts-1',
      input: 'Please open the door for me. The weather is nice today.',
      voice: 'alloy',
      response_format: 'wav',
    });
    const wav = Buffer.from(await speech.arrayBuffer());
    // The OpenAI client sends the list as repeated `timestamp_granularities[]` fields.
    const verbose = await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(wav, 'speech.wav'),
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    });
    expect(verbose.words?.length).toBeGreaterThan(2);
    expect(verbose.segments?.length).toBeGreaterThanOrEqual(1);
    // The same as a plain multipart form, as the issue reported it.
    const form = new FormData();
    form.set('file', new Blob([wav], { type: 'audio/wav' }), 'speech.wav');
    form.set('model', 'whisper-1');
    form.set('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'word');
    form.append('timestamp_granularities[]', 'segment');
    const res = await fetch(`${platform.apiUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}` },
      body: form,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { words?: unknown[]; segments?: unknown[] };
    expect(body.words?.length).toBeGreaterThan(2);
    expect(body.segments?.length).toBeGreaterThanOrEqual(1);

    for (const response_format of ['srt', 'vtt', 'text'] as const) {
      const response = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav, 'speech.wav'), response_format }).asResponse();
      expect([response_format, response.headers.get('content-type')]).toEqual([response_format, 'text/plain; charset=utf-8']);
      expect(await response.text()).toMatch(response_format === 'vtt' ? /^WEBVTT\n\n\d{2}:/ : /door|weather/);
    }
    const translated = await client.audio.translations
      .create({ model: 'whisper-1', file: await toFile(wav, 'speech.wav'), response_format: 'srt' })
      .asResponse();
    expect(translated.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await translated.text()).toMatch(/^1\n\d{2}:\d{2}:\d{2},\d{3} --> /);
  });

  it('runs a queued speech job to its audio and deletes it on complete', async () => {
    const queued = (await (
      await post('/audio/queue', { model: 'svc-flite', prompt: 'A short chapter. It has two sentences.', response_format: 'mp3' })
    ).json()) as { queue_id: string };
    let res: Response;
    for (let i = 0; ; i++) {
      res = await post('/audio/retrieve', { model: 'svc-flite', queue_id: queued.queue_id });
      if (res.headers.get('content-type') !== 'application/json; charset=utf-8' || i > 300) break;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect(await (await post('/audio/complete', { model: 'svc-flite', queue_id: queued.queue_id })).json()).toEqual({ success: true });
  });

  describe('video transcription from a URL', () => {
    let server: Server;
    let base = '';
    let dir = '';
    const files: Record<string, { type: string; body: Buffer | string }> = {};
    const balance = async () =>
      (await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${platform.adminKey}` } })).headers.get('x-svc-balance-usd');
    /** The balance once settlements are in: three equal reads 300 ms apart. */
    const settled = async () => {
      const reads: (string | null)[] = [];
      for (let i = 0; i < 40 && !(reads.length >= 3 && reads.slice(-3).every((r) => r === reads.at(-1))); i++) {
        reads.push(await balance());
        await new Promise((r) => setTimeout(r, 300));
      }
      return reads.at(-1);
    };

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'video-transcription-'));
      const speech = await client.audio.speech.create({
        model: 'tts-1',
        input: 'Thank you very much. The weather is nice today.',
        voice: 'slt' as never,
        response_format: 'wav',
      });
      writeFileSync(path.join(dir, 'speech.wav'), Buffer.from(await speech.arrayBuffer()));
      // a short H.264 + AAC video whose sound track is that speech
      await promisify(execFile)(ffmpegPath(), [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'color=c=blue:s=64x64:r=10',
        '-i',
        path.join(dir, 'speech.wav'),
        '-shortest',
        '-c:v',
        'libx264',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-movflags',
        '+faststart',
        path.join(dir, 'talk.mp4'),
      ]);
      files['/talk.mp4'] = { type: 'video/mp4', body: readFileSync(path.join(dir, 'talk.mp4')) };
      files['/watch'] = { type: 'text/html; charset=utf-8', body: '<!doctype html><title>A video page</title>' };
      server = createServer((req, res) => {
        const file = files[req.url ?? ''];
        if (!file) return void res.writeHead(404).end('not here');
        res.writeHead(200, { 'content-type': file.type }).end(file.body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }, 60_000);

    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    it("answers the reference's {transcript, lang} for a video file, billed per second of its audio", async () => {
      const before = await settled();
      const res = await post('/video/transcriptions', { url: `${base}/talk.mp4` });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { transcript: string; lang: string };
      expect(Object.keys(body).sort()).toEqual(['lang', 'transcript']);
      expect(body.transcript).toMatch(/thank you/);
      expect(body.lang).toBe('en');
      expect(Number(await settled())).toBeLessThan(Number(before));
    });

    it('answers text/plain for response_format text', async () => {
      const res = await post('/video/transcriptions', { url: `${base}/talk.mp4`, response_format: 'text' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toMatch(/weather/);
    });

    it('refuses a web page, a missing file and a private address with a 400 naming url, charging nothing', async () => {
      const before = await settled();
      for (const [url, message] of [
        [`${base}/watch`, /answered text\/html, not a media file.*YouTube/],
        [`${base}/nothing.mp4`, /HTTP 404/],
        ['http://10.0.0.1/talk.mp4', /could not be fetched/],
        ['ftp://example.com/talk.mp4', /http\(s\) URL/],
      ] as const) {
        const res = await post('/video/transcriptions', { url });
        expect(res.status).toBe(400);
        const body = (await res.json()) as { details: { url: { _errors: string[] } } };
        expect(body.details.url._errors.join(' ')).toMatch(message);
      }
      expect(await settled()).toBe(before);
    });
  });
});
