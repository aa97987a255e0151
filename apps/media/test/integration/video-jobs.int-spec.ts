import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ffprobePath as ffprobeBinary } from '@svc/ffmpeg';
import { probeVideo, VideoProbe } from '../../src/video/ffmpeg/probe-video';
import { dataUrl, Proc, startVideoStack, testClip, testTone, VideoStack } from './support/video-stack';

let stack: VideoStack;
let server: Server;
let origin: string;
const clip = testClip({ width: 64, height: 64, seconds: 2 });

beforeAll(async () => {
  stack = await startVideoStack();
  // An outside server the SSRF guard lets through (OUTBOUND_ALLOWLIST=127.0.0.1): serves the clip.
  server = createServer((req, res) => {
    if (req.url === '/clip.mp4') res.writeHead(200, { 'content-type': 'video/mp4' }).end(clip);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 300_000);
afterAll(async () => {
  server?.close();
  await stack?.stop();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${stack.api}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function balanceNano(): Promise<number> {
  const res = await fetch(`${stack.api}/billing/balance`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
  return Math.round(((await res.json()) as { balances: { usd: number } }).balances.usd * 1e9);
}

/** Settlement is sent in the background: wait until the balance stops moving. */
async function settledBalance(): Promise<number> {
  let last = await balanceNano();
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await balanceNano();
    if (now === last && i >= 2) return now;
    last = now;
  }
  return last;
}

interface Status {
  status: string;
  average_execution_time: number;
  execution_duration: number;
  progress?: number;
}

/** Polls retrieve until the answer is not PROCESSING JSON; returns it and every status seen. */
async function waitForVideo(
  model: string,
  queueId: string,
  onStatus?: (s: Status) => Promise<void> | void,
  timeoutMs = 180_000,
): Promise<{ res: Response; seen: Status[] }> {
  const seen: Status[] = [];
  const started = Date.now();
  for (;;) {
    const res = await post('/video/retrieve', { model, queue_id: queueId });
    if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('application/json')) return { res, seen };
    const status = (await res.json()) as Status;
    seen.push(status);
    if (status.status !== 'PROCESSING') return { res: new Response(JSON.stringify(status), { headers: { 'content-type': 'application/json' } }), seen };
    await onStatus?.(status);
    if (Date.now() - started > timeoutMs) throw new Error(`job ${queueId} did not finish: ${JSON.stringify(seen.slice(-3))}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function probeBytes(bytes: Buffer, ext = 'mp4'): Promise<VideoProbe & { transfer: string }> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'svc-video-out-')), `out.${ext}`);
  writeFileSync(file, bytes);
  const transfer = execFileSync(ffprobeBinary(), ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=color_transfer', '-of', 'csv=p=0', file])
    .toString()
    .trim();
  return { ...(await probeVideo(file)), transfer };
}

async function queue(body: Record<string, unknown>): Promise<{ model: string; queue_id: string; download_url?: string }> {
  const res = await post('/video/queue', body);
  const json = (await res.json()) as { model: string; queue_id: string; download_url?: string; error?: string };
  if (res.status !== 200) throw new Error(`queue answered ${res.status}: ${json.error}`);
  return json;
}

describe('POST /video/quote', () => {
  it.each<[string, Record<string, unknown>, number]>([
    // 2 s (measured from the video) x 0.004 USD per second at 2x
    ['upscale 2x from the video', { model: 'svc-video-upscale', duration: '5s', upscale_factor: 2 }, 0.008],
    // target_fps 48 doubles the upscaling price
    ['upscale 2x at 48 fps', { model: 'svc-video-upscale', duration: '5s', upscale_factor: 2, target_fps: 48 }, 0.016],
    ['upscale 4x', { model: 'svc-video-upscale', duration: '5s', upscale_factor: 4 }, 0.02],
    // 2 s x slowdown 2 x 60 fps = 240 frames x 0.00002
    ['interpolation, slowdown 2 to 60 fps', { model: 'svc-video-interpolate', duration: '5s', target_fps: 60, slowdown_factor: 2 }, 0.0048],
  ])('%s', async (_name, body, expected) => {
    const res = await post('/video/quote', { ...body, video_url: dataUrl(clip) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { quote: number }).quote).toBeCloseTo(expected, 9);
  });

  it('fetches video_url through the SSRF guard and prices per second by resolution without one', async () => {
    const fetched = await post('/video/quote', { model: 'svc-video-upscale', duration: '5s', video_url: `${origin}/clip.mp4` });
    expect(await fetched.json()).toEqual({ quote: 0.008 });
    // 5 s x 0.005 USD at 720p; reference duration 10 s on the with-video-input tier: (10 + 5) x 1280 x 720 x 24 / 1024 = 324,000 tokens x 0.01 / 1M
    expect(await (await post('/video/quote', { model: 'svc-zoo-video', duration: '5s', resolution: '720p' })).json()).toEqual({ quote: 0.025 });
    const tiered = await post('/video/quote', {
      model: 'svc-video-refs',
      duration: '5s',
      resolution: '720p',
      aspect_ratio: '16:9',
      reference_video_total_duration: 10,
    });
    expect(((await tiered.json()) as { quote: number }).quote).toBeCloseTo(0.00324, 9);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['duration missing', { model: 'svc-zoo-video' }, 'duration'],
    ['duration 31s', { model: 'svc-zoo-video', duration: '31s' }, 'duration'],
    ['resolution not in the API', { model: 'svc-zoo-video', duration: '5s', resolution: '999p' }, 'resolution'],
    ['resolution not offered by the model', { model: 'svc-zoo-video', duration: '5s', resolution: '1080p' }, 'resolution'],
    ['-1 without reference_video_total_duration', { model: 'svc-video-refs', duration: '-1' }, 'reference_video_total_duration'],
    ['auto aspect without reference_video_total_duration', { model: 'svc-video-refs', duration: '5s', aspect_ratio: 'auto' }, 'reference_video_total_duration'],
    [
      'reference_video_total_duration over 150',
      { model: 'svc-video-refs', duration: '5s', reference_video_total_duration: 151 },
      'reference_video_total_duration',
    ],
    [
      'negative reference_video_total_duration',
      { model: 'svc-video-refs', duration: '5s', reference_video_total_duration: -1 },
      'reference_video_total_duration',
    ],
    ['target_fps 121', { model: 'svc-video-upscale', duration: '5s', target_fps: 121 }, 'target_fps'],
    ['slowdown_factor 3', { model: 'svc-video-interpolate', duration: '5s', slowdown_factor: 3 }, 'slowdown_factor'],
    ['upscale_factor 3', { model: 'svc-video-upscale', duration: '5s', upscale_factor: 3 }, 'upscale_factor'],
    ['upscale_factor not priced (HDR model is 1x)', { model: 'svc-video-hdr', duration: '5s', upscale_factor: 2 }, 'upscale_factor'],
    ['interpolation without a video or target_fps', { model: 'svc-video-interpolate', duration: '5s' }, 'target_fps'],
    ['video_url not a video', { model: 'svc-video-upscale', duration: '5s', video_url: dataUrl(Buffer.from('not a video')) }, 'video_url'],
    ['video_url on a private address', { model: 'svc-video-upscale', duration: '5s', video_url: 'http://169.254.169.254/latest' }, 'video_url'],
    ['an unknown field', { model: 'svc-zoo-video', duration: '5s', colour: 'red' }, ''],
  ])('400 DetailedError naming the field: %s', async (_name, body, field) => {
    const res = await post('/video/quote', body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; details: Record<string, { _errors: string[] }> };
    expect(json.error).toEqual(expect.any(String));
    if (field) expect(json.details[field]._errors.length).toBeGreaterThan(0);
  });

  it('is a 403 StandardError for a model blocked in the caller region, by header or address', async () => {
    const body = { model: 'svc-video-upscale-geo', duration: '5s', video_url: dataUrl(clip) };
    const blocked = await post('/video/quote', body, { 'x-test-region': 'xx' });
    expect(blocked.status).toBe(403);
    const json = (await blocked.json()) as { error: string; details?: unknown };
    expect(json.error).toMatch(/not available in your region/);
    expect(json.details).toBeUndefined();
    expect((await post('/video/queue', { ...body, prompt: 'p' }, { 'x-test-region': 'XX' })).status).toBe(403);
    expect((await post('/video/quote', body, { 'x-test-region': 'FR' })).status).toBe(200);
  });

  it('keeps the operator region policy out of the public model list', async () => {
    const models = (await (await fetch(`${stack.api}/models?type=video`)).json()) as {
      data: Array<{ id: string; model_spec: { constraints: Record<string, unknown> } }>;
    };
    const geo = models.data.find((m) => m.id === 'svc-video-upscale-geo');
    expect(geo?.model_spec.constraints).toMatchObject({ enhancement: true });
    expect(geo?.model_spec.constraints.regionBlock).toBeUndefined();
  });

  it('answers 404 for a model that is not a video model', async () => {
    expect((await post('/video/quote', { model: 'svc-zoo-chat', duration: '5s' })).status).toBe(404);
  });
});

describe('video jobs: queue, retrieve, complete', () => {
  it('upscales 2x to H.264, reports progress, returns an MP4 of the requested size, bills once, and deletes on complete', async () => {
    const before = await settledBalance();
    const job = await queue({ model: 'svc-video-upscale', prompt: 'upscale', duration: '5s', upscale_factor: 2, h264_output: true, video_url: dataUrl(clip) });
    expect(job).toEqual({
      model: 'svc-video-upscale',
      queue_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    });
    const { res, seen } = await waitForVideo('svc-video-upscale', job.queue_id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('x-svc-model-id') ?? 'svc-video-upscale').toBe('svc-video-upscale');
    const bytes = Buffer.from(await res.arrayBuffer());
    const probed = await probeBytes(bytes);
    expect(probed).toMatchObject({ codec: 'h264', width: 128, height: 128, fps: 24 });
    expect(probed.seconds).toBeCloseTo(2, 1);
    for (const s of seen)
      expect(s).toEqual({
        status: 'PROCESSING',
        average_execution_time: expect.any(Number),
        execution_duration: expect.any(Number),
        progress: expect.any(Number),
      });
    // 2 s x 0.004 USD, exactly once.
    expect(before - (await settledBalance())).toBe(8_000_000);

    const again = await post('/video/retrieve', { model: 'svc-video-upscale', queue_id: job.queue_id });
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await (await post('/video/complete', { model: 'svc-video-upscale', queue_id: job.queue_id })).json()).toEqual({ success: true });
    const gone = await post('/video/retrieve', { model: 'svc-video-upscale', queue_id: job.queue_id });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: string }).error).toMatch(/No video job/);
  });

  it('interpolates with slowdown to target_fps in H.265, from a fetched URL, and deletes with delete_media_on_completion', async () => {
    const job = await queue({
      model: 'svc-video-interpolate',
      prompt: 'slow motion',
      duration: '5s',
      target_fps: 48,
      slowdown_factor: 2,
      video_url: `${origin}/clip.mp4`,
    });
    const { res } = await waitForVideo('svc-video-interpolate', job.queue_id);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    const done = await post('/video/retrieve', { model: 'svc-video-interpolate', queue_id: job.queue_id, delete_media_on_completion: true });
    const probed = await probeBytes(Buffer.from(await done.arrayBuffer()));
    expect(probed).toMatchObject({ codec: 'hevc', width: 64, height: 64, fps: 48 });
    expect(Math.abs(probed.seconds - 4)).toBeLessThan(0.25);
    expect((await post('/video/retrieve', { model: 'svc-video-interpolate', queue_id: job.queue_id })).status).toBe(404);
  });

  it('converts SDR to HDR10 H.265 and serves it from a signed download_url without a key', async () => {
    const job = await queue({ model: 'svc-video-hdr', prompt: 'hdr', duration: '5s', video_url: dataUrl(clip) });
    expect(job.download_url).toMatch(/\/api\/v1\/video\/download\/[0-9a-f-]{36}\?expires=\d+&signature=[0-9a-f]{64}$/);
    const url = new URL(job.download_url!);
    expect(Number(url.searchParams.get('expires')) * 1000 - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const { res } = await waitForVideo('svc-video-hdr', job.queue_id);
    // A model with a download URL answers JSON only.
    expect(await res.json()).toMatchObject({ status: 'COMPLETED' });
    const file = await fetch(job.download_url!);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    const probed = await probeBytes(Buffer.from(await file.arrayBuffer()));
    expect(probed).toMatchObject({ codec: 'hevc', pixelFormat: 'yuv420p10le', transfer: 'smpte2084', width: 64, height: 64 });
    url.searchParams.set('signature', '0'.repeat(64));
    expect((await fetch(url)).status).toBe(403);
    await post('/video/complete', { model: 'svc-video-hdr', queue_id: job.queue_id });
    expect((await fetch(job.download_url!)).status).toBe(404);
  });

  it('answers a clear 502 for a job that failed after its attempts, and releases its hold (nothing charged)', async () => {
    const before = await settledBalance();
    // svc-video-refs runs on the enhancement engine without an input video: every attempt fails.
    const job = await queue({ model: 'svc-video-refs', prompt: 'a walk', duration: '5s' });
    let failed: Response | undefined;
    for (let i = 0; i < 200 && !failed; i++) {
      const res = await post('/video/retrieve', { model: 'svc-video-refs', queue_id: job.queue_id });
      if (res.status !== 200) failed = res;
      else await new Promise((r) => setTimeout(r, 300));
    }
    expect(failed?.status).toBe(502);
    expect(((await failed!.json()) as { error: string }).error).toMatch(/video job .* failed.*hold was released/);
    expect(await settledBalance()).toBe(before);
  });

  it('answers 404 for an unknown job, another model, or a UUID that is not a job', async () => {
    const id = '123e4567-e89b-42d3-a456-426614174000';
    expect((await post('/video/retrieve', { model: 'svc-video-upscale', queue_id: id })).status).toBe(404);
    expect((await post('/video/complete', { model: 'svc-video-upscale', queue_id: id })).status).toBe(404);
    expect((await post('/video/retrieve', { model: 'svc-video-upscale', queue_id: 'nope' })).status).toBe(400);
  });

  it('finishes a job whose worker was SIGKILLed mid-job on another worker, billed once', async () => {
    const long = testClip({ width: 96, height: 96, seconds: 6 });
    const before = await settledBalance();
    const job = await queue({ model: 'svc-video-interpolate', prompt: 'p', duration: '5s', target_fps: 60, slowdown_factor: 4, video_url: dataUrl(long) });
    let killed = false;
    let second: Proc | undefined;
    const { res } = await waitForVideo('svc-video-interpolate', job.queue_id, async (status) => {
      if (killed || (status.progress ?? 0) <= 0) return;
      killed = true;
      await stack.media.kill();
      second = await stack.startMedia('media-2');
    });
    expect(killed).toBe(true);
    expect(res.status).toBe(200);
    const probed = await probeBytes(Buffer.from(await res.arrayBuffer()));
    expect(probed).toMatchObject({ fps: 60, width: 96, height: 96 });
    // minterpolate ends on the last source frame: at most one stretched source frame (4 / 24 s) short of 6 s x 4.
    expect(probed.seconds).toBeGreaterThan(24 - 4 / 24 - 0.2);
    expect(probed.seconds).toBeLessThanOrEqual(24.05);
    // 6 s x 4 x 60 fps = 1440 frames x 0.00002 USD, once.
    expect(before - (await settledBalance())).toBe(28_800_000);
    expect(second?.output()).toContain('video job completed');
  }, 400_000);
});

describe('POST /video/queue: every 400 of the spec table', () => {
  const zoo = { model: 'svc-zoo-video', prompt: 'a red circle', duration: '2s', resolution: '256p' };
  const refs = { model: 'svc-video-refs', prompt: 'a walk', duration: '5s' };
  const up = { model: 'svc-video-upscale', prompt: 'up', duration: '5s', video_url: dataUrl(clip) };
  const img = dataUrl(Buffer.from('img'), 'image/png');
  const urls = (n: number) => Array.from({ length: n }, () => img);
  it.each<[string, Record<string, unknown>, string]>([
    ['prompt missing', { ...zoo, prompt: undefined }, 'prompt'],
    ['prompt empty', { ...zoo, prompt: '' }, 'prompt'],
    ['prompt over 20000', { ...zoo, prompt: 'a'.repeat(20_001) }, 'prompt'],
    ["prompt over the model's own limit", { ...refs, prompt: 'a'.repeat(101) }, 'prompt'],
    ['negative_prompt over the model limit', { ...refs, negative_prompt: 'a'.repeat(101) }, 'negative_prompt'],
    ['duration not offered by the model', { ...zoo, duration: '7s' }, 'duration'],
    ['aspect_ratio not offered by the model', { ...zoo, aspect_ratio: '21:9' }, 'aspect_ratio'],
    ['aspect_ratio not in the API', { ...zoo, aspect_ratio: '7:5' }, 'aspect_ratio'],
    ['an enhancement knob on a generation model', { ...zoo, sharp: 0.7 }, 'sharp'],
    ['softness out of range', { ...up, softness: 6 }, 'softness'],
    ['grain over 0.1', { ...up, grain: 0.2 }, 'grain'],
    ['noise over 1', { ...up, noise: 1.5 }, 'noise'],
    ['enhancement_model not listed for the model', { ...up, enhancement_model: 'proteus' }, 'enhancement_model'],
    ['h264_output with output_format', { ...up, h264_output: true, output_format: 'mp4' }, 'h264_output'],
    ['output_format not mp4 or prores', { ...up, output_format: 'webm' }, 'output_format'],
    ['enhancement without video_url', { ...up, video_url: undefined }, 'video_url'],
    ['video_url that is not a URL', { ...up, video_url: 'file:///etc/passwd' }, 'video_url'],
    ['video_url on a private address', { ...up, video_url: 'http://10.0.0.1/v.mp4' }, 'video_url'],
    ['video_url answering 404', { ...up, video_url: `http://127.0.0.1:1/none.mp4` }, 'video_url'],
    ['image_url on a text-to-video model', { ...zoo, image_url: img }, 'image_url'],
    ['reference fields on another model', { ...zoo, reference_image_urls: [img] }, 'reference_image_urls'],
    ['omni_reference_task_type on another model', { ...zoo, omni_reference_task_type: 'edit' }, 'omni_reference_task_type'],
    ['omni_reference_task_type unknown', { ...refs, omni_reference_task_type: 'remix' }, 'omni_reference_task_type'],
    ['31 reference images', { ...refs, reference_image_urls: urls(31) }, 'reference_image_urls'],
    ['11 reference videos', { ...refs, reference_video_urls: urls(11) }, 'reference_video_urls'],
    ['11 reference audio clips', { ...refs, reference_audio_urls: urls(11), reference_image_urls: [img] }, 'reference_audio_urls'],
    ['2 reference documents', { ...refs, reference_document_urls: urls(2) }, 'reference_document_urls'],
    ['5 elements', { ...refs, elements: [{}, {}, {}, {}, {}] }, 'elements'],
    ['5 scene images', { ...refs, scene_image_urls: urls(5) }, 'scene_image_urls'],
    ['11 keyframes', { ...refs, keyframes: Array.from({ length: 11 }, (_, i) => ({ frame_index: i })) }, 'keyframes'],
    ['reference audio without an image or video', { ...refs, reference_audio_urls: [img] }, 'reference_audio_urls'],
    ['@Element2 with one element', { ...refs, prompt: '@Element2 walks', elements: [{ name: 'cat' }] }, 'prompt'],
    ['@Image1 without scene images', { ...refs, prompt: 'in @Image1' }, 'prompt'],
    ['duplicate keyframe frame_index', { ...refs, keyframes: [{ frame_index: 3 }, { frame_index: 3 }] }, 'keyframes'],
    ['keyframe past duration x 24', { ...refs, keyframes: [{ frame_index: 121 }] }, 'keyframes'],
    ['-1 without reference_video_urls', { ...refs, duration: '-1' }, 'reference_video_urls'],
    ['reference video shorter than 2 s', { ...refs, reference_video_urls: [dataUrl(testClip({ width: 32, height: 32, seconds: 1 }))] }, 'reference_video_urls'],
    [
      'reference videos over 15 s together',
      { ...refs, reference_video_urls: [dataUrl(testClip({ width: 32, height: 32, seconds: 8 })), dataUrl(testClip({ width: 32, height: 32, seconds: 8 }))] },
      'reference_video_urls',
    ],
    [
      'reference audio shorter than 2 s',
      { ...refs, reference_image_urls: [img], reference_audio_urls: [dataUrl(testTone(1), 'audio/wav')] },
      'reference_audio_urls',
    ],
    [
      'reference audio over 15 s together',
      { ...refs, reference_image_urls: [img], reference_audio_urls: [dataUrl(testTone(8), 'audio/wav'), dataUrl(testTone(8, 'mp3'), 'audio/mpeg')] },
      'reference_audio_urls',
    ],
    [
      'reference audio that is Ogg, not WAV or MP3',
      { ...refs, reference_image_urls: [img], reference_audio_urls: [dataUrl(testTone(3, 'ogg'), 'audio/ogg')] },
      'reference_audio_urls',
    ],
    ['reference audio that is not audio', { ...refs, reference_image_urls: [img], reference_audio_urls: [img] }, 'reference_audio_urls'],
    ['audio_url on a model without audio input', { ...zoo, audio_url: dataUrl(Buffer.from('x'), 'audio/wav') }, 'audio_url'],
    ['data URL that is not base64', { ...up, video_url: 'data:video/mp4,abc' }, 'video_url'],
    ['an unknown field', { ...zoo, colour: 'red' }, ''],
  ])('%s', async (_name, body, field) => {
    const res = await post('/video/queue', body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; details: Record<string, { _errors: string[] }> };
    if (field) expect(json.details[field]).toBeDefined();
  });

  it('accepts the omni_reference_task_type aliases, valid keyframes, mentions and reference audio (then charges the quote)', async () => {
    const body = {
      ...refs,
      prompt: '@Element1 in @Image1',
      elements: [{ name: 'cat' }],
      scene_image_urls: [img],
      reference_image_urls: [img],
      // WAV and MP3, each 2 to 15 s, 6 s together
      reference_audio_urls: [dataUrl(testTone(3), 'audio/wav'), dataUrl(testTone(3, 'mp3'), 'audio/mpeg')],
      keyframes: [{ frame_index: 0 }, { frame_index: 120 }],
    };
    for (const alias of ['editing', 'extension']) {
      const res = await post('/video/quote', { model: 'svc-video-refs', duration: '5s' });
      expect(res.status).toBe(200);
      const queued = await post('/video/queue', { ...body, omni_reference_task_type: alias });
      // The reference model has no engine for references here: anything but a 400 shows the rules passed.
      expect(queued.status).not.toBe(400);
    }
  });
});

describe('rate limits', () => {
  it('answers 429 past 40 queued videos a minute, with the reset header', async () => {
    const tiny = dataUrl(testClip({ width: 16, height: 16, seconds: 1 }));
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 41 && !limited; i++) {
      const res = await post('/video/queue', {
        model: 'svc-video-upscale',
        prompt: 'p',
        duration: '1s',
        upscale_factor: 1,
        h264_output: true,
        video_url: tiny,
      });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    // Earlier tests of this file queued a few jobs in the same minute: they count too.
    expect(limited?.status).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(statuses.length).toBeGreaterThan(30);
    expect(limited?.headers.get('x-ratelimit-limit-requests')).toBe('40');
    expect(Number(limited?.headers.get('x-ratelimit-reset-requests'))).toBeGreaterThan(Date.now() / 1000 - 1);
  }, 300_000);

  it('answers 429 past 120 retrieves a minute, counted apart from queueing', async () => {
    const id = '123e4567-e89b-42d3-a456-426614174001';
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 125 && !limited; i++) {
      const res = await post('/video/retrieve', { model: 'svc-zoo-video', queue_id: id });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(statuses.slice(0, 120).every((s) => s === 404)).toBe(true);
    expect(limited?.status).toBe(429);
    expect(limited?.headers.get('x-ratelimit-limit-requests')).toBe('120');
  }, 120_000);
});
