import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { probeVideo } from '../../src/video/ffmpeg/probe-video';
import { FAKE_KEY, FakeOpenAIVideosServer } from './support/fake-openai-videos.server';
import { startVideoStack, VideoStack } from './support/video-stack';

// The OpenAI videos adapter behind the video API: a `type: video` model with engine
// `openai-compatible` pointing at a local server that speaks that protocol, driven through the
// gateway (queue, retrieve) like any video model, with credit held and settled (or released).

const MODEL = 'svc-test-upstream-video';
const upstream = new FakeOpenAIVideosServer();
let stack: VideoStack;

beforeAll(async () => {
  await upstream.start();
  process.env.SVC_TEST_VIDEO_UPSTREAM_KEY = FAKE_KEY;
  stack = await startVideoStack([
    {
      id: MODEL,
      name: 'Test upstream video model',
      type: 'video',
      engine: { kind: 'openai-compatible', baseUrl: upstream.baseUrl, model: 'sora-test', apiKeyEnv: 'SVC_TEST_VIDEO_UPSTREAM_KEY', timeoutMs: 60_000 },
      pricing: { video: { per_second: { '256p': { usd: 0.01, diem: 0.01 } } } },
      constraints: { durations: ['2s'], resolutions: ['256p'], defaultResolution: '256p', aspectRatios: ['1:1'], defaultAspectRatio: '1:1' },
    },
  ]);
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  await upstream.stop();
});

const post = (route: string, body: unknown) =>
  fetch(`${stack.api}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const balanceNano = async () => {
  const res = await fetch(`${stack.api}/billing/balance`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
  return Math.round(((await res.json()) as { balances: { usd: number } }).balances.usd * 1e9);
};

/** Retrieve until the job is no longer PROCESSING; then the balance once settlement has landed. */
async function finish(queueId: string): Promise<{ res: Response; balance: number }> {
  for (let i = 0; i < 600; i++) {
    const res = await post('/video/retrieve', { model: MODEL, queue_id: queueId });
    const json = res.headers.get('content-type')?.startsWith('application/json');
    if (res.status !== 200 || !json || ((await res.clone().json()) as { status: string }).status !== 'PROCESSING') {
      let balance = await balanceNano();
      for (let still = 0; still < 3;) {
        await new Promise((r) => setTimeout(r, 500));
        const now = await balanceNano();
        still = now === balance ? still + 1 : 0;
        balance = now;
      }
      return { res, balance };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${queueId} did not finish`);
}

const job = { model: MODEL, duration: '2s', resolution: '256p', aspect_ratio: '1:1' };

it('queues a job on the upstream server, answers its MP4 on retrieve and charges the quote once', async () => {
  const quote = ((await (await post('/video/quote', job)).json()) as { quote: number }).quote;
  expect(quote).toBeCloseTo(0.02, 9);
  const before = await balanceNano();
  const queued = await post('/video/queue', { ...job, prompt: 'a lighthouse at dusk' });
  expect(queued.status).toBe(200);
  const { queue_id } = (await queued.json()) as { queue_id: string };
  const { res, balance } = await finish(queue_id);

  const error = res.status === 200 ? '' : await res.clone().text();
  expect([res.status, res.headers.get('content-type'), error]).toEqual([200, 'video/mp4', '']);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'svc-upstream-video-')), 'out.mp4');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  expect(await probeVideo(file)).toMatchObject({ codec: 'h264', width: 64, height: 64, fps: 24 });
  expect(upstream.creates.at(-1)?.fields).toEqual({ model: 'sora-test', prompt: 'a lighthouse at dusk', seconds: '2', size: '256x256' });
  expect([...upstream.jobs.values()].at(-1)?.deleted).toBe(true);
  expect(before - balance).toBe(Math.round(quote * 1e9));
});

it('a job the upstream fails is a 502 on retrieve that names nothing of the server, and costs nothing', async () => {
  const before = await balanceNano();
  const queued = await post('/video/queue', { ...job, prompt: 'fail' });
  const { queue_id } = (await queued.json()) as { queue_id: string };
  const { res, balance } = await finish(queue_id);
  const body = (await res.json()) as { error: string };
  expect(res.status).toBe(502);
  expect(body.error).toMatch(/^The video job [0-9a-f-]{36} failed/);
  for (const secret of ['127.0.0.1', upstream.baseUrl, FAKE_KEY, '10.1.2.3']) expect(JSON.stringify(body)).not.toContain(secret);
  expect(balance).toBe(before);
});

it('a job the upstream refuses (moderation) fails at once with its reason: one upstream job, not one per retry, and nothing charged', async () => {
  const before = await balanceNano();
  const creates = upstream.creates.length;
  const queued = await post('/video/queue', { ...job, prompt: 'moderation' });
  const { queue_id } = (await queued.json()) as { queue_id: string };
  const { res, balance } = await finish(queue_id);
  const body = (await res.json()) as { error: string };
  expect(res.status).toBe(502);
  expect(body.error).toMatch(/^The video job [0-9a-f-]{36} failed: .*moderation/i);
  expect(upstream.creates.length - creates).toBe(1);
  expect(balance).toBe(before);
});
