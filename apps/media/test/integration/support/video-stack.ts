import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from '@svc/config';
import { freePort, ServiceProcess, startKeysBillingStack } from '@svc/testing';
import { ffmpegPath as ffmpegBinary } from '@svc/ffmpeg';

export type Proc = ServiceProcess;

export interface VideoStack {
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  adminKey: string;
  media: Proc;
  gateway: Proc;
  /** Another media process on this stack (a second video worker). */
  startMedia(name: string): Promise<Proc>;
  stop(): Promise<void>;
}

const READY_MS = 180_000;

/**
 * The catalog of config/models.yaml plus test models: `svc-video-upscale-geo` (svc-video-upscale
 * blocked for region header `XX` and 198.51.100.0/24) and `svc-video-refs` (a reference-to-video
 * model, for the reference fields' rules), and a test's own `extraModels`.
 */
function testCatalog(extraModels: ReadonlyArray<Record<string, unknown>>): string {
  const catalog = parse(readFileSync(path.join(REPO_ROOT, 'config/models.yaml'), 'utf8')) as { models: Array<Record<string, unknown>> };
  const upscale = catalog.models.find((m) => m.id === 'svc-video-upscale')!;
  catalog.models.push({
    ...upscale,
    id: 'svc-video-upscale-geo',
    constraints: { ...(upscale.constraints as object), regionBlock: { header: 'x-test-region', countries: ['XX'], cidrs: ['198.51.100.0/24'] } },
  });
  catalog.models.push({
    ...upscale,
    id: 'svc-video-refs',
    pricing: { video: { per_second: { '720p': { usd: 0.001, diem: 0.001 } }, video_input: { per_million_tokens: { usd: 0.01, diem: 0.01 } } } },
    constraints: { referenceToVideo: true, defaultResolution: '720p', promptCharacterLimit: 100 },
  });
  catalog.models.push(...extraModels);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'svc-video-catalog-')), 'models.yaml');
  writeFileSync(file, stringify(catalog));
  return file;
}

/**
 * Private NATS and Redis, fresh keys and billing databases, and the keys, billing, media and
 * gateway processes from their TypeScript sources. Job locks are short so a killed worker's job is
 * taken over within seconds; 127.0.0.1 is on the outbound allowlist so tests serve input videos
 * from a local HTTP server.
 */
export async function startVideoStack(extraModels: ReadonlyArray<Record<string, unknown>> = []): Promise<VideoStack> {
  const stack = await startKeysBillingStack('vid');
  try {
    const catalog = testCatalog(extraModels);
    const mediaEnv = {
      SVC_CATALOG_PATH: catalog,
      SAFE_MODE_CLASSIFIER: 'off',
      REDIS_KEY_PREFIX: 'svc_test_vid:',
      VIDEO_JOB_LOCK_MS: '3000',
      VIDEO_JOB_STALLED_INTERVAL_MS: '1000',
      VIDEO_JOB_BACKOFF_MS: '200',
    };
    const port = await freePort();
    const media = stack.start('media', 'apps/media/src/main.ts', mediaEnv);
    const gateway = stack.start('gateway', 'apps/gateway/src/main.ts', {
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_CATALOG_PATH: catalog,
      REDIS_KEY_PREFIX: 'svc_test_vid:',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      // The 400 tables send far more than 20 failing requests in 30 s.
      ABUSE_PROTECTION_ENABLED: 'false',
      VIDEO_DOWNLOAD_SECRET: 'a-test-secret-of-at-least-thirty-two-characters',
    });
    await Promise.all([stack.ready(READY_MS), media.waitFor('media service ready', READY_MS), gateway.waitFor('gateway listening', READY_MS)]);
    return {
      api: `http://127.0.0.1:${port}/api/v1`,
      adminKey: stack.adminKey,
      media,
      gateway,
      async startMedia(name) {
        const p = stack.start(name, 'apps/media/src/main.ts', mediaEnv);
        await p.waitFor('media service ready', READY_MS);
        return p;
      },
      stop: () => stack.stop(),
    };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

/** A test clip: ffmpeg's test pattern, H.264, no audio (so its duration is exactly frames / fps). */
export function testClip(options: { width: number; height: number; seconds: number; fps?: number }): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-video-clip-'));
  const file = path.join(dir, 'clip.mp4');
  const fps = options.fps ?? 24;
  execFileSync(ffmpegBinary(), [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${options.width}x${options.height}:rate=${fps}`,
    '-t',
    String(options.seconds),
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    file,
  ]);
  return readFileSync(file);
}

/** A sine tone of `seconds` as WAV, MP3 or Ogg/Opus (reference audio clips). */
export function testTone(seconds: number, format: 'wav' | 'mp3' | 'ogg' = 'wav'): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-video-tone-'));
  const file = path.join(dir, `tone.${format}`);
  execFileSync(ffmpegBinary(), ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-ar', '16000', file]);
  return readFileSync(file);
}

export const dataUrl = (bytes: Buffer, type = 'video/mp4'): string => `data:${type};base64,${bytes.toString('base64')}`;
