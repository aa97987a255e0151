// The bench compares each engine called directly with the same job through the API, so it builds
// the media service's engines and starts its test stack from their sources: the one exception to
// the module boundaries here (as in bench/compare), since apps have no path alias.
/* eslint-disable @nx/enforce-module-boundaries */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalog } from '@svc/catalog';
import { videoConstraintsOf } from '@svc/contracts';
import { FfmpegEnhanceEngine } from '../../../apps/media/src/video/engines/ffmpeg/ffmpeg-enhance.engine';
import { DiffusionVideoEngineFactory } from '../../../apps/media/src/video/engines/generation.providers';
import { VideoEngine, VideoRequest } from '../../../apps/media/src/video/engines/video-engine';
import { probeVideo } from '../../../apps/media/src/video/ffmpeg/probe-video';
import { REPO_ROOT } from '@svc/config';
import { dataUrl, startVideoStack, testClip, VideoStack } from '../../../apps/media/test/integration/support/video-stack';
import { BenchCase, CASES } from './cases';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;
const clip = testClip({ width: 128, height: 128, seconds: 4 });

interface Row {
  engine: string;
  path: 'direct' | 'API';
  runs: number;
  videoSeconds: number;
  wallSeconds: number;
}

async function seconds(bytes: Buffer): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-video-'));
  try {
    writeFileSync(path.join(dir, 'out'), bytes);
    return (await probeVideo(path.join(dir, 'out'))).seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The engine called in this process with the request the gateway would build (same size, fps, duration). */
async function direct(engine: VideoEngine, request: VideoRequest): Promise<number> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-video-'));
  try {
    const result = await engine.run(request, { signal: new AbortController().signal, progress: () => undefined, workDir });
    return result.durationSeconds;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Queue, poll every 250 ms, take the video: what a client sees. */
async function throughApi(stack: VideoStack, c: BenchCase): Promise<number> {
  const post = (p: string, body: unknown) =>
    fetch(`${stack.api}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const queued = await post('/video/queue', { model: c.model, prompt: 'a red circle', ...c.body, ...(c.input ? { video_url: dataUrl(clip) } : {}) });
  const { queue_id, download_url, error } = (await queued.json()) as { queue_id: string; download_url?: string; error?: string };
  if (queued.status !== 200) throw new Error(`${c.name}: queue ${queued.status} ${error}`);
  for (;;) {
    const res = await post('/video/retrieve', { model: c.model, queue_id, delete_media_on_completion: !download_url });
    // Polling is limited to 120 a minute per model: a slow job's poller waits as a client would.
    if (res.status === 429) {
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    if (res.status !== 200) throw new Error(`${c.name}: retrieve ${res.status} ${await res.text()}`);
    const json = res.headers.get('content-type')?.startsWith('application/json');
    if (!json) return seconds(Buffer.from(await res.arrayBuffer()));
    const status = (await res.json()) as { status: string };
    if (status.status === 'COMPLETED' && download_url) {
      const file = Buffer.from(await (await fetch(download_url)).arrayBuffer());
      await post('/video/complete', { model: c.model, queue_id });
      return seconds(file);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function requestOf(c: BenchCase): VideoRequest {
  const upscale = Number(c.body.upscale_factor ?? 1);
  const slowdown = Number(c.body.slowdown_factor ?? 1);
  if (c.input)
    return {
      model: c.model,
      prompt: '',
      width: 128 * upscale,
      height: 128 * upscale,
      fps: Number(c.body.target_fps ?? 24),
      durationSeconds: 4 * slowdown,
      video: clip,
      options: c.body,
    };
  return { model: c.model, prompt: 'a red circle', width: 256, height: 256, fps: 24, durationSeconds: 4, options: c.body };
}

async function main(): Promise<void> {
  const catalog = loadCatalog(path.join(REPO_ROOT, 'config/models.yaml'));
  const diffusion = new DiffusionVideoEngineFactory({ SVC_MODELS_DIR: path.join(REPO_ROOT, 'models'), IMAGE_THREADS: 0 });
  const engineOf = (c: BenchCase): VideoEngine => {
    const model = catalog.models.find((m) => m.id === c.model)!;
    videoConstraintsOf(model);
    return model.engine.kind === 'embedded-diffusion-video' ? diffusion.create(model) : new FfmpegEnhanceEngine();
  };
  const stack = await startVideoStack();
  const rows: Row[] = [];
  try {
    for (const c of CASES) {
      const engine = engineOf(c);
      await direct(engine, requestOf(c)); // warm-up (model load, page cache)
      await throughApi(stack, c);
      for (const [label, once] of [
        ['direct', () => direct(engine, requestOf(c))],
        ['API', () => throughApi(stack, c)],
      ] as const) {
        let videoSeconds = 0;
        const started = performance.now();
        for (let i = 0; i < runs; i++) videoSeconds += await once();
        rows.push({ engine: c.name, path: label, runs, videoSeconds, wallSeconds: (performance.now() - started) / 1000 });
      }
    }
  } finally {
    await diffusion.onApplicationShutdown();
    await stack.stop();
  }
  console.log('| engine | path | runs | video s | wall s | video s per wall s |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.engine} | ${r.path} | ${r.runs} | ${r.videoSeconds.toFixed(2)} | ${r.wallSeconds.toFixed(2)} | ${(r.videoSeconds / r.wallSeconds).toFixed(2)} |`,
    );
  writeFileSync(path.join(__dirname, '..', 'last-run.json'), JSON.stringify({ at: new Date().toISOString(), runs, rows }, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
