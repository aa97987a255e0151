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
