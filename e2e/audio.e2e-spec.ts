import OpenAI, { toFile } from 'openai';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * Audio through the platform as `npm start` runs it (built `dist/`, every service): speech with
 * the embedded Flite engine, its transcription by PocketSphinx, and an asynchronous job.
 */
describe('audio end to end', () => {
  let platform: RunningPlatform;
  let client: OpenAI;

  beforeAll(async () => {
    platform = await startPlatform();
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
});
