import { ffprobe } from './audio-check';
import { AudioStack, Proc, startAudioStack } from './support/audio-stack';

let stack: AudioStack;

beforeAll(async () => {
  stack = await startAudioStack();
}, 240_000);
afterAll(async () => {
  await stack?.stop();
});

async function post(path: string, body: unknown, key: string | null = stack.adminKey): Promise<Response> {
  return fetch(`${stack.api}${path}`, {
    method: 'POST',
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function balanceUsd(): Promise<number> {
  const res = await fetch(`${stack.api}/billing/balance`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
  return ((await res.json()) as { balances: { usd: number } }).balances.usd;
}

const nano = (usd: number) => Math.round(usd * 1e9);
const sentences = (n: number) => Array.from({ length: n }, (_, i) => `This is sentence ${i + 1} of a long chapter read aloud in the background.`).join(' ');

interface Status {
  status: string;
  average_execution_time: number;
  execution_duration: number;
  progress: number;
}

/** Polls retrieve until the job is done; returns the final response and every status seen. */
async function waitForAudio(queueId: string, timeoutMs = 90_000, onStatus?: (s: Status) => Promise<void> | void): Promise<{ res: Response; seen: Status[] }> {
  const seen: Status[] = [];
  const started = Date.now();
  for (;;) {
    const res = await post('/audio/retrieve', { model: 'svc-flite', queue_id: queueId });
    if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('application/json')) return { res, seen };
    const status = (await res.json()) as Status;
    seen.push(status);
    await onStatus?.(status);
    if (Date.now() - started > timeoutMs) throw new Error(`job ${queueId} did not finish: ${JSON.stringify(seen.slice(-3))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('POST /audio/quote', () => {
  it('prices characters without a key', async () => {
    const res = await post('/audio/quote', { model: 'svc-flite', character_count: 2500 }, null);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ quote: 0.0025 });
  });

  it('answers 400 without character_count and 404 for a model that cannot be queued', async () => {
    expect((await post('/audio/quote', { model: 'svc-flite' }, null)).status).toBe(400);
    expect((await post('/audio/quote', { model: 'svc-pocketsphinx', character_count: 10 }, null)).status).toBe(404);
  });
});

describe('audio jobs: queue, retrieve, complete', () => {
  it('queues, reports progress, returns the audio, bills once and deletes on complete', async () => {
    const prompt = sentences(12);
    const before = await balanceUsd();
    const queued = await post('/audio/queue', { model: 'svc-flite', prompt, voice: 'awb', response_format: 'mp3' });
    expect(queued.status).toBe(200);
    const job = (await queued.json()) as { model: string; queue_id: string; status: string };
    expect(job).toEqual({ model: 'svc-flite', queue_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'QUEUED' });

    const { res, seen } = await waitForAudio(job.queue_id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const audio = Buffer.from(await res.arrayBuffer());
    const probed = ffprobe(audio);
    expect(probed.codec).toBe('mp3');
    expect(probed.durationS).toBeGreaterThan(prompt.length / 20);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toEqual({
      status: 'PROCESSING',
      average_execution_time: expect.any(Number),
      execution_duration: expect.any(Number),
      progress: expect.any(Number),
    });

    // Billed exactly once, for every character.
    await new Promise((r) => setTimeout(r, 1_000));
    const after = await balanceUsd();
    expect(nano(before - after)).toBe(prompt.length * 1_000);

    // Kept until completed: a second retrieve returns the same audio.
    const again = await post('/audio/retrieve', { model: 'svc-flite', queue_id: job.queue_id });
    expect(Buffer.from(await again.arrayBuffer()).equals(audio)).toBe(true);

    const completed = await post('/audio/complete', { model: 'svc-flite', queue_id: job.queue_id });
    expect(await completed.json()).toEqual({ success: true });
    expect((await post('/audio/retrieve', { model: 'svc-flite', queue_id: job.queue_id })).status).toBe(404);
    expect(await balanceUsd()).toBe(after);
  });

  it('deletes the media on retrieve with delete_media_on_completion', async () => {
    const queued = (await (await post('/audio/queue', { model: 'svc-flite', prompt: 'Short job.', response_format: 'wav' })).json()) as { queue_id: string };
    await waitForAudio(queued.queue_id);
    const res = await post('/audio/retrieve', { model: 'svc-flite', queue_id: queued.queue_id, delete_media_on_completion: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(ffprobe(Buffer.from(await res.arrayBuffer())).codec).toBe('pcm_s16le');
    expect((await post('/audio/retrieve', { model: 'svc-flite', queue_id: queued.queue_id })).status).toBe(404);
  });

  it('answers 404 for an unknown job or the wrong model and 400 for bad input', async () => {
    expect((await post('/audio/retrieve', { model: 'svc-flite', queue_id: '123e4567-e89b-12d3-a456-426614174000' })).status).toBe(404);
    expect((await post('/audio/complete', { model: 'svc-flite', queue_id: '123e4567-e89b-12d3-a456-426614174000' })).status).toBe(404);
    expect((await post('/audio/retrieve', { model: 'svc-flite', queue_id: 'not-a-uuid' })).status).toBe(400);
    expect((await post('/audio/queue', { model: 'svc-flite', prompt: '' })).status).toBe(400);
    const badVoice = await post('/audio/queue', { model: 'svc-flite', prompt: 'Hi.', voice: 'nobody' });
    expect(badVoice.status).toBe(400);
    expect(((await badVoice.json()) as { error: string }).error).toMatch(/Valid voices: slt, awb, rms, kal16/);
  });

  it('finishes a job whose worker was killed mid-job on another worker, billed once', async () => {
    const prompt = sentences(70);
    const before = await balanceUsd();
    const queued = (await (await post('/audio/queue', { model: 'svc-flite', prompt, response_format: 'mp3' })).json()) as { queue_id: string };
    let killed = false;
    let lastProgressBeforeKill = 0;
    let second: Proc | undefined;
    const { res, seen } = await waitForAudio(queued.queue_id, 120_000, async (status) => {
      if (killed || status.progress <= 0) return;
      lastProgressBeforeKill = status.progress;
      killed = true;
      await stack.audio.kill();
      second = await stack.startAudio('audio-2');
    });
    expect(killed).toBe(true);
    expect(lastProgressBeforeKill).toBeLessThan(100);
    expect(seen.length).toBeGreaterThan(1);
    expect(res.status).toBe(200);
    const probed = ffprobe(Buffer.from(await res.arrayBuffer()));
    expect(probed.codec).toBe('mp3');
    expect(probed.durationS).toBeGreaterThan(prompt.length / 20);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(nano(before - (await balanceUsd()))).toBe(prompt.length * 1_000);
    // The second worker took the stalled job over and finished it.
    expect(second?.output()).toContain('audio job completed');
  });
});
