import http from 'node:http';
import { AddressInfo } from 'node:net';
import exifReader from 'exif-reader';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { ImageStack, startImageStack } from './support/image-stack';

/**
 * The image endpoints through a real gateway, media, keys and billing (and chat for
 * enhance_prompt), on a private NATS and Redis and fresh databases. The media service runs with
 * SAFE_MODE_NSFW_THRESHOLD=0, so every output with safe_mode on is blurred: the blur path is
 * exercised without adult images. Tests that look at pixels turn safe mode off.
 */
let stack: ImageStack;
/** Serves /in.png (a 320x240 PNG) and 404 otherwise, for image URLs; reachable as `localhost` only (OUTBOUND_ALLOWLIST). */
let imageServer: http.Server;
let imagePort: number;

beforeAll(async () => {
  const servedPng = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#30c060' } })
    .png()
    .toBuffer();
  imageServer = http.createServer((req, res) => {
    if (req.url === '/in.png') res.writeHead(200, { 'content-type': 'image/png' }).end(servedPng);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imagePort = (imageServer.address() as AddressInfo).port;
  stack = await startImageStack({
    withChat: true,
    mediaEnv: { SAFE_MODE_NSFW_THRESHOLD: '0' },
    // Image requests are limited per minute and many 4xx answers block a caller for a while;
    // short windows keep this suite (which provokes many 400s) under both.
    gatewayEnv: { RATE_LIMIT_WINDOW_MS: '2000', ABUSE_WINDOW_MS: '1000', ABUSE_BLOCK_MS: '1000', OUTBOUND_ALLOWLIST: 'localhost' },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => imageServer?.close(resolve));
}, 60_000);

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  bytes: Buffer;
}

async function post(path: string, body: unknown, init: { key?: string; form?: FormData; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.key ?? stack.adminKey}`, ...(init.headers ?? {}) };
  if (!init.form) headers['content-type'] = 'application/json';
  let res = await fetch(`${stack.api}${path}`, { method: 'POST', headers, body: init.form ?? JSON.stringify(body) });
  // The image rate limit (20 per 2 s window here) can be reached by this fast suite: wait it out.
  for (let i = 0; i < 10 && res.status === 429 && res.headers.get('x-ratelimit-reset-requests'); i++) {
    await new Promise((r) => setTimeout(r, 500));
    res = await fetch(`${stack.api}${path}`, { method: 'POST', headers, body: init.form ?? JSON.stringify(body) });
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  const isJson = (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, headers: res.headers, body: isJson ? JSON.parse(bytes.toString()) : undefined, bytes };
}

const gen = (over: Record<string, unknown> = {}) =>
  post('/image/generate', {
    model: 'svc-zoo-image',
    prompt: 'a red circle on a white background',
    width: 64,
    height: 64,
    steps: 4,
    seed: 7,
    safe_mode: false,
    format: 'png',
    ...over,
  });

const rawPixels = async (file: Buffer) => sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });

/** Mean absolute difference between horizontally neighbouring pixels: lower when blurred. */
function edgeEnergy(data: Buffer, width: number, channels: number): number {
  let sum = 0;
  let n = 0;
  for (let i = channels; i < data.length; i++) {
    if ((i / channels) % width === 0) continue;
    sum += Math.abs(data[i] - data[i - channels]);
    n++;
  }
  return sum / n;
}

async function balanceUsd(): Promise<number> {
  const res = await fetch(`${stack.api}/billing/balance`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
  const body = (await res.json()) as any;
  return Number(body.balances?.USD ?? body.balances?.usd ?? body.usd ?? NaN);
}

/** The balance once earlier requests' settlements have landed: three reads 300 ms apart agree. */
async function settledBalanceUsd(): Promise<number> {
  let last = await balanceUsd();
  for (let agreeing = 0, i = 0; agreeing < 2 && i < 40; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const next = await balanceUsd();
    agreeing = next === last ? agreeing + 1 : 0;
    last = next;
  }
  return last;
}

describe('GET /image/styles', () => {
  it('lists the presets without a key', async () => {
    const res = await fetch(`${stack.api}/image/styles`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.object).toBe('list');
    expect(body.data).toEqual(expect.arrayContaining(['Anime', 'Cinematic', 'Pixel Art']));
  });
});

describe('POST /image/generate', () => {
  it('returns base64 images of the requested format and size, with the model, rate-limit and safe-mode headers', async () => {
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const res = await gen({ format, width: 96, height: 48 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(String),
        images: [expect.any(String)],
        timing: expect.objectContaining({ total: expect.any(Number) }),
        request: expect.objectContaining({ format }),
      });
      const meta = await sharp(Buffer.from(res.body.images[0], 'base64')).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual([format, 96, 48]);
      expect(res.headers.get('x-svc-model-id')).toBe('svc-zoo-image');
      expect(res.headers.get('x-svc-is-blurred')).toBe('false');
      expect(res.headers.get('x-svc-is-content-violation')).toBe('false');
      // The image rate-limit class (20 requests per window for a free account).
      expect(res.headers.get('x-ratelimit-limit-requests')).toBe('20');
    }
  });

  it('defaults to 1024x1024 webp', async () => {
    const res = await post('/image/generate', { model: 'default', prompt: 'a blue square', steps: 2, safe_mode: false });
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(res.body.images[0], 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1024, 1024]);
  });

  it('returns the bytes with return_binary, uncompressed, while JSON answers are compressed on request', async () => {
    const binary = await gen({ return_binary: true, format: 'jpeg' }).then((r) => r);
    expect(binary.status).toBe(200);
    expect(binary.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(binary.bytes).metadata()).format).toBe('jpeg');

    const viaGzip = await post(
      '/image/generate',
      { model: 'svc-zoo-image', prompt: 'a red circle', width: 64, height: 64, steps: 2, seed: 1, safe_mode: false, return_binary: true, format: 'png' },
      { headers: { 'accept-encoding': 'gzip, br' } },
    );
    expect(viaGzip.headers.get('content-encoding')).toBeNull();
    const json = await post(
      '/image/generate',
      { model: 'svc-zoo-image', prompt: 'a red circle', width: 256, height: 256, steps: 2, seed: 1, safe_mode: false, format: 'png' },
      { headers: { 'accept-encoding': 'gzip, br' } },
    );
    expect(json.status).toBe(200);
    expect(['gzip', 'br']).toContain(json.headers.get('content-encoding'));
  });

  it('reproduces an image from its seed, and variants differ', async () => {
    const a = await gen({ return_binary: true, seed: 12345 });
    const b = await gen({ return_binary: true, seed: 12345 });
    expect(a.status).toBe(200);
    expect(a.bytes.equals(b.bytes)).toBe(true);
    const variants = await gen({ variants: 3, seed: 12345 });
    expect(variants.body.images).toHaveLength(3);
    expect(new Set(variants.body.images).size).toBe(3);
    // Variant i is seed + i: the first one is the seed's own image.
    expect(Buffer.from(variants.body.images[0], 'base64').equals(a.bytes)).toBe(true);
  });

  it('embeds the prompt and settings in EXIF when asked, and not otherwise', async () => {
    const prompt = 'a green star on a black background';
    const withExif = await gen({ prompt, format: 'jpeg', embed_exif_metadata: true, return_binary: true });
    const meta = await sharp(withExif.bytes).metadata();
    expect(meta.exif).toBeDefined();
    const exif = exifReader(meta.exif!);
    expect(exif.Image?.ImageDescription).toBe(prompt);
    const settings = JSON.parse(
      Buffer.from(exif.Photo?.UserComment as Buffer)
        .toString('utf8')
        .replace(/^(ASCII|UNICODE)?\0*/, '')
        .replace(/\0/g, ''),
    );
    expect(settings).toMatchObject({ model: 'svc-zoo-image', seed: 7, steps: 4, width: 64, height: 64 });
    const without = await gen({ prompt, format: 'jpeg', return_binary: true });
    expect((await sharp(without.bytes).metadata()).exif).toBeUndefined();
  });

  it('draws a visible watermark in the bottom-right corner unless hide_watermark', async () => {
    const marked = await rawPixels((await gen({ width: 256, height: 256, return_binary: true })).bytes);
    const clean = await rawPixels((await gen({ width: 256, height: 256, return_binary: true, hide_watermark: true })).bytes);
    const diff = (x0: number, y0: number, x1: number, y1: number) => {
      let d = 0;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) for (let c = 0; c < 3; c++) d += Math.abs(marked.data[(y * 256 + x) * 3 + c] - clean.data[(y * 256 + x) * 3 + c]);
      return d / ((x1 - x0) * (y1 - y0) * 3);
    };
    expect(diff(220, 245, 256, 256)).toBeGreaterThan(10);
    expect(diff(0, 0, 128, 128)).toBe(0);
  });

  it('blurs every output in safe mode when the threshold is 0, and says so in the headers', async () => {
    const safe = await gen({ width: 128, height: 128, safe_mode: true, hide_watermark: true, return_binary: true });
    const plain = await gen({ width: 128, height: 128, safe_mode: false, hide_watermark: true, return_binary: true });
    expect(safe.headers.get('x-svc-is-blurred')).toBe('true');
    expect(plain.headers.get('x-svc-is-blurred')).toBe('false');
    const [s, p] = await Promise.all([rawPixels(safe.bytes), rawPixels(plain.bytes)]);
    expect(edgeEnergy(s.data, 128, 3)).toBeLessThan(edgeEnergy(p.data, 128, 3) * 0.8);
  });

  it('applies a style preset and refuses an unknown one', async () => {
    expect((await gen({ style_preset: 'Neon' })).status).toBe(200);
    const bad = await gen({ style_preset: 'Nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.style_preset._errors[0]).toMatch(/Unknown style/);
  });

  it('answers 400 DetailedError naming the field for global and model bounds', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ width: 1281 }, 'width'],
      [{ height: 0 }, 'height'],
      [{ cfg_scale: 0 }, 'cfg_scale'],
      [{ cfg_scale: 20.5 }, 'cfg_scale'],
      [{ variants: 5 }, 'variants'],
      [{ variants: 2, return_binary: true }, 'variants'],
      [{ seed: 1_000_000_000 }, 'seed'],
      [{ format: 'gif' }, 'format'],
      [{ prompt: 'x'.repeat(1501) }, 'prompt'],
      [{ steps: 101 }, 'steps'],
      [{ resolution: '2K' }, 'resolution'],
      [{ style_references: [{ image: 'abc' }] }, 'style_references'],
    ];
    for (const [over, field] of cases) {
      const res = await gen(over);
      expect([JSON.stringify(over), res.status]).toEqual([JSON.stringify(over), 400]);
      expect(res.body.details[field]._errors.length).toBeGreaterThan(0);
    }
    const missing = await post('/image/generate', { model: 'svc-zoo-image' });
    expect(missing.status).toBe(400);
    expect(missing.body.details.prompt).toBeDefined();
    const unknownModel = await gen({ model: 'no-such-model' });
    expect(unknownModel.status).toBe(404);
  });

  it('charges the per-image price of the catalog (0.001 USD) per variant', async () => {
    // An earlier test's image may still be settling (CI once saw one land inside this test).
    const before = await settledBalanceUsd();
    expect(Number.isFinite(before)).toBe(true);
    const res = await gen({ variants: 2 });
    expect(res.status).toBe(200);
    let after = before;
    for (let i = 0; i < 50 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await balanceUsd();
    }
    expect(Math.round((before - after) * 1e9)).toBe(2_000_000);
  });

  it('rewrites the prompt with enhance_prompt, returns it URL-encoded and bills the rewrite on top of the image', async () => {
    const before = await balanceUsd();
    const res = await gen({ enhance_prompt: true });
    expect(res.status).toBe(200);
    const header = res.headers.get('x-svc-enhanced-prompt');
    expect(header).toBeTruthy();
    expect(decodeURIComponent(header!).length).toBeGreaterThan(0);
    expect(decodeURIComponent(header!)).toBe(decodeURIComponent(header!).trim());
    // One image (1,000,000 nano-USD) plus the text model's tokens for the rewrite.
    let spent = 0;
    for (let i = 0; i < 50 && spent <= 1_000_000; i++) {
      await new Promise((r) => setTimeout(r, 100));
      spent = Math.round((before - (await balanceUsd())) * 1e9);
    }
    expect(spent).toBeGreaterThan(1_000_000);
  });
});

describe('OpenAI-compatible endpoints through the official client', () => {
  // Retries only for the suite's own rate limit (429), which the client backs off from.
  const client = () => new OpenAI({ baseURL: stack.api, apiKey: stack.adminKey, maxRetries: 6 });

  it('images.generate returns b64_json PNGs of the requested size (OpenAI model names map to the default model)', async () => {
    const result = await client().images.generate({
      model: 'dall-e-3',
      prompt: 'a yellow triangle',
      size: '256x256',
      response_format: 'b64_json',
      moderation: 'low',
    } as never);
    const meta = await sharp(Buffer.from(result.data![0].b64_json!, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 256]);
    const asUrl = await client().images.generate({ prompt: 'a yellow triangle', size: '256x256', response_format: 'url' });
    expect(asUrl.data![0].url).toMatch(/^data:image\/png;base64,/);
  });

  it('images.edit edits an uploaded PNG', async () => {
    const input = await sharp({ create: { width: 320, height: 256, channels: 3, background: '#3050d0' } })
      .png()
      .toBuffer();
    const result = await client().images.edit({
      image: await toFile(input, 'in.png', { type: 'image/png' }),
      prompt: 'a red circle',
      model: 'dall-e-2',
      size: '256x256',
    });
    const meta = await sharp(Buffer.from(result.data![0].b64_json!, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 256]);
  });
});

describe('POST /image/edit', () => {
  const png = (w: number, h: number) =>
    sharp({ create: { width: w, height: h, channels: 3, background: '#d03030' } })
      .png()
      .toBuffer();

  it('edits a multipart upload and returns the file (PNG at 1K, aspect ratio inferred from the input)', async () => {
    const form = new FormData();
    form.set('image', new Blob([await png(512, 288)], { type: 'image/png' }), 'in.png');
    form.set('prompt', 'a blue star');
    form.set('safe_mode', 'false');
    const res = await post('/image/edit', undefined, { form });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(res.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 576]);
    expect(res.headers.get('x-svc-model-id')).toBe('svc-zoo-image-edit');
  });

  it('accepts base64 and the deprecated modelId, with JPEG by default at 2K', async () => {
    const res = await post('/image/edit', {
      image: (await png(300, 300)).toString('base64'),
      prompt: 'a green ring',
      modelId: 'svc-zoo-image-edit',
      resolution: '2K',
      aspect_ratio: '1:1',
      safe_mode: false,
    });
    expect(res.status).toBe(200);
    const meta = await sharp(res.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 2048, 2048]);
  });

  it('refuses bad images with 400 DetailedError on the image field', async () => {
    const corrupt = await post('/image/edit', { image: Buffer.from('definitely not an image').toString('base64'), prompt: 'x' });
    const small = await post('/image/edit', { image: (await png(100, 100)).toString('base64'), prompt: 'x' });
    const truncated = await post('/image/edit', { image: (await png(400, 400)).subarray(0, 200).toString('base64'), prompt: 'x' });
    for (const res of [corrupt, small, truncated]) {
      expect(res.status).toBe(400);
      expect(res.body.details.image._errors.length).toBeGreaterThan(0);
    }
    expect(small.body.details.image._errors[0]).toMatch(/at least 65536 pixels/);
    const badRatio = await post('/image/edit', { image: (await png(300, 300)).toString('base64'), prompt: 'x', aspect_ratio: '5:1' });
    expect(badRatio.status).toBe(400);
    expect(badRatio.body.details.aspect_ratio).toBeDefined();
  });
});

describe('image URLs through the SSRF guard', () => {
  it('fetches an allowed URL and refuses private addresses and failed fetches with 400 on image', async () => {
    const ok = await post('/image/edit', { image: `http://localhost:${imagePort}/in.png`, prompt: 'a red circle', safe_mode: false });
    expect(ok.status).toBe(200);
    // 320x240 is 4:3, not offered by the edit model: the closest supported ratio is 3:2.
    expect(await sharp(ok.bytes).metadata()).toMatchObject({ format: 'png', width: 1024, height: 683 });
    const loopback = await post('/image/edit', { image: `http://127.0.0.1:${imagePort}/in.png`, prompt: 'x' });
    const missing = await post('/image/upscale', { image: `http://localhost:${imagePort}/missing.png`, scale: 2 });
    for (const res of [loopback, missing]) {
      expect(res.status).toBe(400);
      expect(res.body.details.image._errors[0]).toMatch(/could not be fetched/);
    }
    expect(missing.body.error).toMatch(/HTTP 404/);
  });
});

describe('POST /image/upscale', () => {
  it('upscales by the factor to a PNG (classical Lanczos), from multipart or base64', async () => {
    const input = await sharp({ create: { width: 300, height: 256, channels: 3, background: '#20a040' } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.set('image', new Blob([input], { type: 'image/jpeg' }), 'in.jpg');
    form.set('scale', '2');
    const res = await post('/image/upscale', undefined, { form });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(await sharp(res.bytes).metadata()).toMatchObject({ format: 'png', width: 600, height: 512 });
    const b64 = await post('/image/upscale', { image: input.toString('base64'), scale: 3, creativity: 0.5 });
    expect(await sharp(b64.bytes).metadata()).toMatchObject({ format: 'png', width: 900, height: 768 });
    expect(b64.headers.get('x-svc-model-router')).toBe('embedded-sharp-resample');
  });

  it('refuses a scale outside 2-4 and a missing image', async () => {
    const input = (
      await sharp({ create: { width: 300, height: 256, channels: 3, background: '#20a040' } })
        .png()
        .toBuffer()
    ).toString('base64');
    for (const scale of [1.5, 5]) {
      const res = await post('/image/upscale', { image: input, scale });
      expect(res.status).toBe(400);
      expect(res.body.details.scale).toBeDefined();
    }
    const missing = await post('/image/upscale', { scale: 2 });
    expect(missing.status).toBe(400);
    expect(missing.body.details.image).toBeDefined();
  });
});

describe('privacy', () => {
  it('never logs prompts', () => {
    const logs = stack.processes.map((p) => p.output()).join('\n');
    expect(logs).not.toContain('a green star on a black background');
    expect(logs).not.toContain('a blue star');
  });
});
