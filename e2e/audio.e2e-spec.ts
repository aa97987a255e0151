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
});
