import sharp from 'sharp';
import { ImageStack, startImageStack } from './support/image-stack';

/**
 * `POST /image/multi-edit` (layers composed, then the zoo edit model) and `POST /image/background-remove`
 * (svc-bg-classical) through a real gateway, media, keys and billing on a private NATS and Redis.
 */
let stack: ImageStack;

beforeAll(async () => {
  stack = await startImageStack({ gatewayEnv: { RATE_LIMIT_WINDOW_MS: '2000', ABUSE_WINDOW_MS: '1000', ABUSE_BLOCK_MS: '1000' } });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

async function post(path: string, body: unknown, form?: FormData): Promise<{ status: number; headers: Headers; body: any; bytes: Buffer }> {
  const headers: Record<string, string> = { authorization: `Bearer ${stack.adminKey}` };
  if (!form) headers['content-type'] = 'application/json';
  const res = await fetch(`${stack.api}${path}`, { method: 'POST', headers, body: form ?? JSON.stringify(body) });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString()) : undefined,
    bytes,
  };
}

async function balanceUsd(): Promise<number> {
  const res = await fetch(`${stack.api}/billing/balance`, { headers: { authorization: `Bearer ${stack.adminKey}` } });
  const body = (await res.json()) as any;
  return Number(body.balances?.USD ?? body.balances?.usd ?? body.usd ?? NaN);
}

/** Balance spent by `call`, in nano-USD, once settlement has landed. */
async function spentBy(call: () => Promise<unknown>): Promise<number> {
  const before = await balanceUsd();
  await call();
  let after = before;
  for (let i = 0; i < 50 && after === before; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await balanceUsd();
  }
  return Math.round((before - after) * 1e9);
}

const solid = (w: number, h: number, background: string) =>
  sharp({ create: { width: w, height: h, channels: 3, background } })
    .png()
    .toBuffer();

/** A 320x240 white image with a red disc (radius 60) at its centre, and the disc's exact mask. */
async function discImage(): Promise<{ png: Buffer; mask: Uint8Array }> {
  const svg = `<svg width="320" height="240"><rect width="320" height="240" fill="#ffffff"/><circle cx="160" cy="120" r="60" fill="#d02020"/></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const mask = new Uint8Array(320 * 240);
  for (let y = 0; y < 240; y++) for (let x = 0; x < 320; x++) mask[y * 320 + x] = (x + 0.5 - 160) ** 2 + (y + 0.5 - 120) ** 2 <= 3600 ? 1 : 0;
  return { png, mask };
}

describe('POST /image/multi-edit', () => {
  it('edits several multipart images with one prompt and bills one edit (0.002 USD)', async () => {
    const form = new FormData();
    form.append('images', new Blob([await solid(512, 288, '#d03030')], { type: 'image/png' }), 'base.png');
    form.append('images', new Blob([await solid(256, 256, '#3030d0')], { type: 'image/png' }), 'layer.png');
    form.set('prompt', 'a blue star');
    form.set('safe_mode', 'false');
    let res!: Awaited<ReturnType<typeof post>>;
    const spent = await spentBy(async () => (res = await post('/image/multi-edit', undefined, form)));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(res.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 576]);
    expect(res.headers.get('x-svc-model-id')).toBe('svc-zoo-image-edit');
    expect(spent).toBe(2_000_000);
  });

  it('accepts base64 images in JSON', async () => {
    const images = [(await solid(300, 300, '#20a020')).toString('base64'), (await solid(300, 300, '#a0a020')).toString('base64')];
    let res!: Awaited<ReturnType<typeof post>>;
    // Settlement is asynchronous (batched per SETTLE_WINDOW_MS): measured, so the next test starts from a settled balance.
    const spent = await spentBy(
      async () => (res = await post('/image/multi-edit', { images, prompt: 'a green ring', resolution: '1K', aspect_ratio: '1:1', safe_mode: false })),
    );
    expect(res.status).toBe(200);
    expect((await sharp(res.bytes).metadata()).width).toBe(1024);
    expect(spent).toBe(2_000_000);
  });

  it('answers 400 naming the field for a missing, bad or oversized image list and a bad prompt', async () => {
    const ok = (await solid(300, 300, '#808080')).toString('base64');
    const cases: Array<[unknown, string]> = [
      [{ prompt: 'x' }, 'images'],
      [{ images: [], prompt: 'x' }, 'images'],
      [{ images: [ok, ok, ok, ok], prompt: 'x' }, 'images'],
      [{ images: [ok, Buffer.from('not an image').toString('base64')], prompt: 'x' }, 'image'],
      [{ images: [ok] }, 'prompt'],
      [{ images: [ok], prompt: '' }, 'prompt'],
    ];
    const spent = await spentBy(async () => {
      for (const [body, field] of cases) {
        const res = await post('/image/multi-edit', body);
        expect([res.status, Object.keys(res.body.details ?? {})]).toEqual([400, expect.arrayContaining([field])]);
      }
    });
    expect(spent).toBe(0);
  });
});

describe('POST /image/background-remove', () => {
  it('returns a PNG with alpha whose mask matches the subject (IoU > 0.97), billed 0.0005 USD', async () => {
    const { png, mask } = await discImage();
    let res!: Awaited<ReturnType<typeof post>>;
    const spent = await spentBy(async () => (res = await post('/image/background-remove', { image: png.toString('base64') })));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-svc-model-id')).toBe('svc-bg-classical');
    const { data, info } = await sharp(res.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([320, 240, 4]);
    let inter = 0;
    let union = 0;
    for (let i = 0; i < mask.length; i++) {
      const fg = data[i * 4 + 3] >= 128;
      if (fg && mask[i]) inter++;
      if (fg || mask[i]) union++;
    }
    expect(inter / union).toBeGreaterThan(0.97);
    expect(spent).toBe(500_000);
  });

  it('accepts a multipart file', async () => {
    const form = new FormData();
    form.set('image', new Blob([(await discImage()).png], { type: 'image/png' }), 'in.png');
    let res!: Awaited<ReturnType<typeof post>>;
    // Waiting for its charge keeps it out of the next test's balance window (settlement is asynchronous).
    const spent = await spentBy(async () => (res = await post('/image/background-remove', undefined, form)));
    expect(res.status).toBe(200);
    expect((await sharp(res.bytes).metadata()).hasAlpha).toBe(true);
    expect(spent).toBe(500_000);
  });

  it('answers 400 for a missing or bad image and for both image and image_url, without charging', async () => {
    const ok = (await discImage()).png.toString('base64');
    const spent = await spentBy(async () => {
      for (const body of [
        {},
        { image: Buffer.from('nope').toString('base64') },
        { image: ok, image_url: 'https://example.com/a.png' },
        { image_url: 'ftp://x/y.png' },
      ]) {
        const res = await post('/image/background-remove', body);
        expect(res.status).toBe(400);
        expect(res.body.details).toBeDefined();
      }
    });
    expect(spent).toBe(0);
  });
});
