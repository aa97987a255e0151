import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from '@svc/config';
import { DomainError, ErrorCode } from '@svc/errors';
import { SdapiImageEngine } from '../../src/engines/sdapi/sdapi-image.engine';
import { ImageStack, startImageStack } from './support/image-stack';

/**
 * The AUTOMATIC1111 / Forge `sdapi` adapter against a local server that speaks the protocol
 * (`POST /sdapi/v1/txt2img` and `/img2img`, JSON with base64 PNGs made with sharp, a batch grid
 * first, `info` as a JSON string, HTTP Basic auth, FastAPI error shapes): first the engine on its
 * own (request shape, timeouts, unreachable), then through a real gateway, media, keys and billing
 * with a catalog that adds sdapi models pointing at that server.
 */

/** The colour the fake server paints for a seed, so tests can tell which seed made an image. */
const colourOf = (seed: number): [number, number, number] => [(seed * 53) % 256, (seed * 97) % 256, (seed * 151) % 256];
const AUTH = 'svc:s3cret-pass';

interface Seen {
  path: string;
  auth?: string;
  body: any;
}
const seen: Seen[] = [];
/** When set, the fake server answers this instead of rendering. */
let forced: { status: number; body: unknown } | null = null;
let delayMs = 0;

async function render(body: any, img2img: boolean): Promise<{ status: number; body: unknown }> {
  if (typeof body?.prompt !== 'string')
    return { status: 422, body: { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] } };
  const width = body.width ?? 512;
  const height = body.height ?? 512;
  const batch = body.batch_size ?? 1;
  const seed = body.seed === -1 || body.seed === undefined ? 1000 : body.seed;
  const seeds = Array.from({ length: batch }, (_, i) => seed + i);
  let images: Buffer[];
  if (img2img) {
    // Denoising strength 0 would keep the input: the fake keeps it, resized to the asked size.
    const init = Buffer.from(body.init_images?.[0] ?? '', 'base64');
    try {
      images = [await sharp(init).resize(width, height, { fit: 'fill' }).png().toBuffer()];
    } catch {
      return { status: 500, body: { error: 'HTTPException', detail: 'Invalid encoded image', body: '', errors: '' } };
    }
  } else {
    images = await Promise.all(
      seeds.map((s) =>
        sharp({ create: { width, height, channels: 3, background: { r: colourOf(s)[0], g: colourOf(s)[1], b: colourOf(s)[2] } } })
          .png()
          .toBuffer(),
      ),
    );
  }
  // The web UI's "return grid" option puts a grid of the batch first.
  const grid =
    batch > 1
      ? [
          await sharp({ create: { width: width * batch, height, channels: 3, background: '#000000' } })
            .png()
            .toBuffer(),
        ]
      : [];
  const info = JSON.stringify({ prompt: body.prompt, all_seeds: seeds, seed, width, height, index_of_first_image: grid.length });
  return { status: 200, body: { images: [...grid, ...images].map((b) => b.toString('base64')), parameters: {}, info } };
}

let server: http.Server;
let serverUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      let reply: { status: number; body: unknown };
      if (forced) reply = forced;
      else if (req.headers.authorization !== `Basic ${Buffer.from(AUTH).toString('base64')}`)
        reply = { status: 401, body: { detail: 'Incorrect username or password' } };
      else if (req.method === 'POST' && req.url === '/sdapi/v1/txt2img') reply = await render(body, false);
      else if (req.method === 'POST' && req.url === '/sdapi/v1/img2img') reply = await render(body, true);
      else reply = { status: 404, body: { detail: 'Not Found' } };
      if (res.destroyed) return;
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
  forced = null;
  delayMs = 0;
});

describe('SdapiImageEngine', () => {
  const engine = (over: Partial<ConstructorParameters<typeof SdapiImageEngine>[0]> = {}) =>
    new SdapiImageEngine({ baseUrl: serverUrl, auth: AUTH, timeoutMs: 5_000, ...over });

  it('generates one image through txt2img and decodes it to RGB', async () => {
    const out = await engine({ checkpoint: 'v1-5.safetensors', sampler: 'Euler a' }).generate({
      prompt: 'a cat',
      width: 96,
      height: 64,
      seed: 5,
      steps: 9,
      cfgScale: 3.5,
    });
    expect([out.width, out.height, out.rgb.length, out.seed]).toEqual([96, 64, 96 * 64 * 3, 5]);
    expect(Array.from(out.rgb.subarray(0, 3))).toEqual(colourOf(5));
    expect(seen[0].path).toBe('/sdapi/v1/txt2img');
    expect(seen[0].body).toMatchObject({
      prompt: 'a cat',
      seed: 5,
      batch_size: 1,
      width: 96,
      height: 64,
      steps: 9,
      cfg_scale: 3.5,
      sampler_name: 'Euler a',
      override_settings: { sd_model_checkpoint: 'v1-5.safetensors' },
    });
  });

  it('makes a batch in one call, drops the grid and numbers seeds from the first', async () => {
    const out = await engine().generateBatch({ prompt: 'a dog', width: 64, height: 64, seed: 100 }, 3);
    expect(seen).toHaveLength(1);
    expect(seen[0].body.batch_size).toBe(3);
    expect(out.map((o) => o.seed)).toEqual([100, 101, 102]);
    expect(out.map((o) => Array.from(o.rgb.subarray(0, 3)))).toEqual([colourOf(100), colourOf(101), colourOf(102)]);
  });

  it('sends a bearer token when the secret is not user:password (a proxy in front)', async () => {
    await engine({ auth: 'tok123' })
      .generate({ prompt: 'x' })
      .catch(() => undefined);
    expect(seen[0].auth).toBe('Bearer tok123');
  });

  it('maps a slow server to 504 and an unreachable one to 502', async () => {
    delayMs = 1_000;
    const slow = (await engine({ timeoutMs: 200 })
      .generate({ prompt: 'x' })
      .catch((e: unknown) => e)) as DomainError;
    expect([slow.code, slow.message]).toEqual([ErrorCode.Timeout, 'The image server timed out.']);
    const unreachable = (await engine({ baseUrl: 'http://127.0.0.1:1' })
      .generate({ prompt: 'x' })
      .catch((e: unknown) => e)) as DomainError;
    expect([unreachable.code, unreachable.message]).toEqual([ErrorCode.Upstream, 'The image server is unreachable.']);
  });

  it('refuses an answer without enough images or with an undecodable one', async () => {
    forced = { status: 200, body: { images: [], info: '{}' } };
    expect(
      (
        (await engine()
          .generate({ prompt: 'x' })
          .catch((e: unknown) => e)) as DomainError
      ).message,
    ).toMatch(/without the images/);
    forced = { status: 200, body: { images: [Buffer.from('not a png').toString('base64')], info: '{}' } };
    expect(
      (
        (await engine()
          .generate({ prompt: 'x' })
          .catch((e: unknown) => e)) as DomainError
      ).message,
    ).toMatch(/could not be decoded/);
  });
});

describe('sdapi models through the gateway', () => {
  let stack: ImageStack;
  let dir: string;

  beforeAll(async () => {
    // The shipped catalog plus an sdapi image model and an sdapi edit model on the fake server.
    const catalog = parse(readFileSync(path.join(REPO_ROOT, 'config/models.yaml'), 'utf8')) as { models: unknown[] };
    catalog.models.push(
      {
        id: 'svc-sdapi-image',
        name: 'SD web UI (test)',
        type: 'image',
        engine: {
          kind: 'sdapi',
          baseUrl: serverUrl,
          checkpoint: 'sd_xl_base_1.0.safetensors',
          sampler: 'DPM++ 2M',
          authEnv: 'SDAPI_TEST_AUTH',
          timeoutMs: 20_000,
        },
        modelSource: 'upstream',
        pricing: { generation: { usd: 0.004, diem: 0.004 } },
        constraints: { sizing: 'pixels', steps: { default: 20, max: 50 }, cfgScale: { default: 7, max: 20 } },
      },
      {
        id: 'svc-sdapi-edit',
        name: 'SD web UI img2img (test)',
        type: 'inpaint',
        engine: { kind: 'sdapi', baseUrl: serverUrl, authEnv: 'SDAPI_TEST_AUTH', denoisingStrength: 0.45, timeoutMs: 20_000 },
        modelSource: 'upstream',
        pricing: { inpaint: { usd: 0.003, diem: 0.003 } },
        constraints: { sizing: 'tiered', aspectRatios: ['1:1', '3:2'], defaultAspectRatio: '1:1', resolutions: ['1K'], defaultResolution: '1K' },
      },
      {
        id: 'svc-sdapi-nokey',
        name: 'SD web UI without its credentials (test)',
        type: 'image',
        engine: { kind: 'sdapi', baseUrl: serverUrl, authEnv: 'SDAPI_TEST_AUTH_UNSET' },
        pricing: { generation: { usd: 0.004, diem: 0.004 } },
      },
    );
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sdapi-'));
    const catalogPath = path.join(dir, 'models.yaml');
    writeFileSync(catalogPath, stringify(catalog));
    stack = await startImageStack({
      mediaEnv: { SVC_CATALOG_PATH: catalogPath, SDAPI_TEST_AUTH: AUTH, SAFE_MODE_CLASSIFIER: 'off' },
      gatewayEnv: { SVC_CATALOG_PATH: catalogPath, RATE_LIMIT_WINDOW_MS: '2000', ABUSE_WINDOW_MS: '1000', ABUSE_BLOCK_MS: '1000' },
    });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  async function post(route: string, body: unknown): Promise<{ status: number; headers: Headers; json: any; bytes: Buffer }> {
    const res = await fetch(`${stack.api}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    return {
      status: res.status,
      headers: res.headers,
      json: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString()) : undefined,
      bytes,
    };
  }

  async function balanceNanoUsd(): Promise<number> {
    const res = await fetch(`${stack.api}/billing/balance`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
    const body = (await res.json()) as any;
    return Math.round(Number(body.balances?.USD ?? body.balances?.usd ?? body.usd) * 1e9);
  }

  /** Waits until the balance moves away from `before` (billing settles asynchronously), or 3 s. */
  async function spentSince(before: number, expected: number): Promise<number> {
    let spent = 0;
    for (let i = 0; i < 30; i++) {
      spent = before - (await balanceNanoUsd());
      if (spent >= expected) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return spent;
  }

  const centre = async (file: Buffer) => {
    const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
    return Array.from(data.subarray(at, at + 3));
  };

  it('generates variants as one txt2img batch with every setting passed on, and bills each image', async () => {
    const before = await balanceNanoUsd();
    const res = await post('/image/generate', {
      model: 'svc-sdapi-image',
      prompt: 'a lighthouse at dusk',
      negative_prompt: 'blurry',
      width: 320,
      height: 200,
      steps: 12,
      cfg_scale: 6.5,
      seed: 42,
      variants: 3,
      style_preset: 'Neon',
      format: 'png',
      safe_mode: false,
      hide_watermark: true,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-model-id')).toBe('svc-sdapi-image');
    expect(res.headers.get('x-svc-model-router')).toBe('sdapi');
    expect(res.json.images).toHaveLength(3);
    for (const [i, b64] of (res.json.images as string[]).entries()) {
      const file = Buffer.from(b64, 'base64');
      expect(await sharp(file).metadata()).toMatchObject({ format: 'png', width: 320, height: 200 });
      expect(await centre(file)).toEqual(colourOf(42 + i));
    }
    expect(seen).toHaveLength(1);
    expect(seen[0].path).toBe('/sdapi/v1/txt2img');
    expect(seen[0].auth).toBe(`Basic ${Buffer.from(AUTH).toString('base64')}`);
    expect(seen[0].body).toMatchObject({
      prompt: 'a lighthouse at dusk, neon glow, purple and blue, black background',
      negative_prompt: 'blurry, white background',
      width: 320,
      height: 200,
      steps: 12,
      cfg_scale: 6.5,
      seed: 42,
      batch_size: 3,
      sampler_name: 'DPM++ 2M',
      override_settings: { sd_model_checkpoint: 'sd_xl_base_1.0.safetensors' },
    });
    expect(await spentSince(before, 12_000_000)).toBe(12_000_000);
  });

  it("rounds the size to the server's multiple of 8 and still answers the exact size asked for", async () => {
    const before = await balanceNanoUsd();
    const res = await post('/image/generate', {
      model: 'svc-sdapi-image',
      prompt: 'a boat',
      width: 300,
      height: 210,
      seed: 1,
      format: 'jpeg',
      safe_mode: false,
      return_binary: true,
    });
    expect(res.status).toBe(200);
    expect(seen[0].body).toMatchObject({ width: 304, height: 208, batch_size: 1, steps: 20, cfg_scale: 7 });
    expect(await sharp(res.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 300, height: 210 });
    // Settled before the next test reads its balance (settlements travel in batches).
    expect(await spentSince(before, 4_000_000)).toBe(4_000_000);
  });

  it('edits through img2img with the input as a PNG and the catalog denoising strength', async () => {
    const before = await balanceNanoUsd();
    const input = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#3050d0' } })
      .png()
      .toBuffer();
    const res = await post('/image/edit', {
      model: 'svc-sdapi-edit',
      image: input.toString('base64'),
      prompt: 'make it night',
      aspect_ratio: '1:1',
      safe_mode: false,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(await sharp(res.bytes).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    expect(seen[0].path).toBe('/sdapi/v1/img2img');
    expect(seen[0].body).toMatchObject({ prompt: 'make it night', denoising_strength: 0.45, width: 1024, height: 1024, batch_size: 1 });
    expect(await sharp(Buffer.from(seen[0].body.init_images[0], 'base64')).metadata()).toMatchObject({ format: 'png', width: 512, height: 512 });
    // The fake keeps the input: its colour comes back.
    expect(await centre(res.bytes)).toEqual([0x30, 0x50, 0xd0]);
    expect(await spentSince(before, 3_000_000)).toBe(3_000_000);
  });

  it("maps the server's failures without revealing where it is, and charges nothing for them", async () => {
    const before = await balanceNanoUsd();
    const gen = () => post('/image/generate', { model: 'svc-sdapi-image', prompt: 'a tree', width: 64, height: 64, safe_mode: false });

    forced = { status: 422, body: { detail: [{ loc: ['body', 'width'], msg: `must be at most 2048, see ${serverUrl}/docs on 127.0.0.1:7860` }] } };
    const invalid = await gen();
    expect(invalid.status).toBe(400);
    expect(invalid.json.error).toBe('The image server rejected the request: width: must be at most 2048, see [url] on [address]');

    forced = { status: 500, body: { error: 'OutOfMemoryError', detail: '', body: '', errors: `CUDA out of memory on ${serverUrl}` } };
    const crashed = await gen();
    expect(crashed.status).toBe(502);
    expect(crashed.json).toEqual({ error: 'The image server failed (HTTP 500).' });

    forced = { status: 503, body: { detail: 'busy' } };
    expect((await gen()).status).toBe(503);

    forced = { status: 401, body: { detail: 'Incorrect username or password' } };
    const refused = await gen();
    expect(refused.status).toBe(502);

    const port = new URL(serverUrl).port;
    for (const res of [invalid, crashed, refused]) expect(res.bytes.toString()).not.toMatch(new RegExp(`127\\.0\\.0\\.1|:${port}|CUDA|password`));
    forced = null;
    // Nothing was charged for the failures.
    await new Promise((r) => setTimeout(r, 300));
    expect(before - (await balanceNanoUsd())).toBe(0);
  });

  it('keeps a model whose credentials variable is unset out of service instead of calling without them', async () => {
    const res = await post('/image/generate', { model: 'svc-sdapi-nokey', prompt: 'a tree', width: 64, height: 64, safe_mode: false });
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ error: 'Model svc-sdapi-nokey is not available on this server.' });
    expect(seen).toHaveLength(0);
  });

  it('never logs prompts', () => {
    const logs = stack.processes.map((p) => p.output()).join('\n');
    expect(logs).not.toContain('a lighthouse at dusk');
    expect(logs).not.toContain('make it night');
  });
});
