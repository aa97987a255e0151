import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { DomainError, ErrorCode } from '@svc/errors';
import { OpenAIVideosEngine, OpenAIVideosEngineOptions } from '../../src/video/engines/upstream/openai-videos.engine';
import { VideoRequest, VideoRunContext } from '../../src/video/engines/video-engine';
import { FAKE_KEY, FakeOpenAIVideosServer } from './support/fake-openai-videos.server';
import { probeVideo } from './support/video-engine-probe';

// The OpenAI videos API adapter against a local server that speaks that protocol.

describe('OpenAIVideosEngine', () => {
  const upstream = new FakeOpenAIVideosServer();
  let workDir: string;
  const engine = (over: Partial<OpenAIVideosEngineOptions> = {}) =>
    new OpenAIVideosEngine({ baseUrl: upstream.baseUrl, model: 'sora-test', apiKey: FAKE_KEY, timeoutMs: 10_000, pollMinMs: 20, pollMaxMs: 100, ...over });
  const request = (over: Partial<VideoRequest> = {}): VideoRequest => ({
    model: 'svc-upstream-video',
    prompt: 'a lighthouse at dusk',
    durationSeconds: 2,
    width: 64,
    height: 64,
    fps: 24,
    options: {},
    ...over,
  });
  const context = (over: Partial<VideoRunContext> = {}): VideoRunContext => ({
    signal: new AbortController().signal,
    progress: () => undefined,
    workDir,
    ...over,
  });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => Promise.reject(new Error('expected a failure')),
      (err: unknown) => err as DomainError,
    );
  /** Nothing of the upstream's address, URLs or key may reach a caller. */
  const leaksNothing = (err: DomainError) => {
    expect(err).toBeInstanceOf(DomainError);
    for (const secret of ['127.0.0.1', upstream.baseUrl, FAKE_KEY, '10.1.2.3', 'http', 'example.com']) expect(err.message).not.toContain(secret);
  };
  const lastJob = () => [...upstream.jobs.values()].at(-1)!;

  beforeAll(() => upstream.start(), 30_000);
  afterAll(() => upstream.stop());
  beforeEach(() => {
    workDir = mkdtempSync(path.join(os.tmpdir(), 'video-engine-upstream-'));
    upstream.creates.length = 0;
  });
  afterEach(() => rmSync(workDir, { recursive: true, force: true }));

  it('creates (JSON), polls with progress, streams the MP4 into the job directory, then deletes the upstream copy', async () => {
    const progress: number[] = [];
    const result = await engine().run(request(), context({ progress: (f) => progress.push(f) }));
    expect(upstream.creates[0]).toMatchObject({
      contentType: 'application/json',
      auth: `Bearer ${FAKE_KEY}`,
      fields: { model: 'sora-test', prompt: 'a lighthouse at dusk', seconds: '2', size: '64x64' },
    });
    expect(result).toMatchObject({ contentType: 'video/mp4', path: path.join(workDir, 'upstream-video.mp4') });
    expect(result.durationSeconds).toBeCloseTo(2, 1);
    expect(await probeVideo(result.path)).toMatchObject({ codec: 'h264', width: 64, height: 64, fps: 24, frames: 48 });
    expect(progress).toEqual([0, 0.38, 1]);
    expect(lastJob().deleted).toBe(true);
  });

  it('image-to-video sends the image as the multipart file input_reference', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    await engine().run(request({ image: png, durationSeconds: 4.4, width: 1280, height: 720 }), context());
    const seen = upstream.creates[0];
    expect(seen.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen.fields).toEqual({ model: 'sora-test', prompt: 'a lighthouse at dusk', seconds: '4', size: '1280x720' });
    expect(seen.reference?.type).toBe('image/png');
    expect(seen.reference?.bytes.equals(png)).toBe(true);

    const notImage = await failure(engine().run(request({ image: Buffer.from('GIF89a nope') }), context()));
    expect([notImage.status, upstream.creates.length]).toEqual([400, 1]);
  });

  it('a failed job is a 502 that names no upstream detail; a job refused by moderation is a 400', async () => {
    const failed = await failure(engine().run(request({ prompt: 'fail' }), context()));
    expect([failed.code, failed.status, failed.message]).toEqual([ErrorCode.Upstream, 502, 'The video server failed to make the video (internal_error).']);
    leaksNothing(failed);
    expect(lastJob().deleted).toBe(true);

    const refused = await failure(engine().run(request({ prompt: 'moderation' }), context()));
    expect([refused.status, refused.message]).toEqual([400, 'The video server refused the request: Your request was blocked by our moderation system.']);
  });

  it('a slow job times out at the engine timeout (504) and is deleted upstream', async () => {
    const started = Date.now();
    const slow = await failure(engine({ timeoutMs: 800 }).run(request({ prompt: 'slow' }), context()));
    expect([slow.code, slow.status]).toEqual([ErrorCode.Timeout, 504]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(lastJob().deleted).toBe(true);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('a poll that fails (503) is retried; three failures in a row fail the job', async () => {
    const result = await engine().run(request({ prompt: 'flaky' }), context());
    expect(result.durationSeconds).toBeCloseTo(2, 1);
    expect(lastJob().polls).toBe(4);

    const down = new FakeOpenAIVideosServer();
    await down.start();
    const job = engine({ baseUrl: down.baseUrl }).run(request({ prompt: 'slow' }), context({ progress: (f) => f === 0 && void down.stop() }));
    expect((await failure(job)).status).toBe(502);
  });

  it('cancelling the job stops polling and deletes the upstream job', async () => {
    const controller = new AbortController();
    const run = engine().run(request({ prompt: 'slow' }), context({ signal: controller.signal, progress: (f) => f > 0 && controller.abort() }));
    const cancelled = await failure(run);
    expect([cancelled.code, cancelled.message]).toEqual([ErrorCode.ServiceUnavailable, 'Video generation was cancelled.']);
    expect(lastJob().deleted).toBe(true);
    const polls = lastJob().polls;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lastJob().polls).toBe(polls);
  });

  it('a worker stopping mid-job keeps the upstream job; the next attempt resumes it (no second create), then deletes it', async () => {
    const controller = new AbortController();
    let kept: string | undefined;
    const first = engine().run(
      request(),
      context({ signal: controller.signal, started: async (id) => void (kept = id), handingOver: () => true, progress: (f) => f > 0 && controller.abort() }),
    );
    expect((await failure(first)).message).toBe('Video generation was cancelled.');
    expect(kept).toBe(lastJob().id);
    expect(lastJob().deleted).toBe(false);

    const result = await engine().run(request(), context({ resumeFrom: kept }));
    expect(upstream.creates).toHaveLength(1);
    expect(await probeVideo(result.path)).toMatchObject({ codec: 'h264', frames: 48 });
    expect(upstream.jobs.get(kept!)?.deleted).toBe(true);
  });

  it('an earlier attempt’s upstream job that is gone or failed is started again; only a stopped run is kept; discard deletes a kept one', async () => {
    const gone = await engine().run(request(), context({ resumeFrom: 'video_never_was' }));
    expect(gone.durationSeconds).toBeCloseTo(2, 1);
    expect(upstream.creates).toHaveLength(1);

    upstream.jobs.set('video_failed_before', { id: 'video_failed_before', prompt: 'fail', polls: 1, deleted: false });
    await engine().run(request(), context({ resumeFrom: 'video_failed_before' }));
    expect(upstream.jobs.get('video_failed_before')?.deleted).toBe(true);
    expect(upstream.creates).toHaveLength(2);

    // Only a stopped run is handed over: a failed or finished one is deleted even while stopping.
    const stopping = () => true;
    expect((await failure(engine().run(request({ prompt: 'fail' }), context({ handingOver: stopping })))).status).toBe(502);
    expect(lastJob().deleted).toBe(true);
    await engine().run(request(), context({ handingOver: stopping }));
    expect(lastJob().deleted).toBe(true);

    upstream.jobs.set('video_kept', { id: 'video_kept', prompt: 'slow', polls: 0, deleted: false });
    await engine().discard('video_kept');
    expect(upstream.jobs.get('video_kept')?.deleted).toBe(true);
  });

  it('maps the server’s refusals, a wrong key, a file that is not a video or too large, and no server at all, leaking none of its details', async () => {
    const rejected = await failure(engine().run(request({ prompt: 'reject' }), context()));
    expect([rejected.status, rejected.message]).toEqual([400, 'The video server rejected the request: Invalid size; see [url] or ask [url]']);
    leaksNothing(rejected);

    const badKey = await failure(engine({ apiKey: 'sk-wrong-key-456' }).run(request(), context()));
    expect([badKey.status, badKey.message]).toEqual([502, "The video server refused this platform's credentials (HTTP 401)."]);
    expect(badKey.message).not.toContain('sk-wrong-key-456');

    const garbage = await failure(engine().run(request({ prompt: 'garbage' }), context()));
    expect([garbage.status, garbage.message]).toEqual([502, 'The video server answered a file that is not a playable video.']);
    expect(lastJob().deleted).toBe(true);

    for (const prompt of ['announced by its content-length', 'chunked']) {
      const huge = await failure(engine({ maxDownloadBytes: 4096 }).run(request({ prompt }), context()));
      expect([huge.status, huge.message]).toEqual([502, 'The video server answered a video larger than 4096 bytes.']);
      expect(lastJob().deleted).toBe(true);
    }
    expect((await engine().run(request({ prompt: 'chunked' }), context())).durationSeconds).toBeCloseTo(2, 1);

    const gone = await failure(engine({ baseUrl: 'http://127.0.0.1:9/v1' }).run(request(), context()));
    expect([gone.status, gone.message]).toEqual([502, 'The video server is unreachable.']);
  });
});
