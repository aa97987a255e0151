import OpenAI from 'openai';
import sharp from 'sharp';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * Images end to end, with the platform as `npm start` runs it (built dist/, default catalog, the
 * embedded zoo image model, nsfwjs safe mode) and the official `openai` client.
 */
describe('images end to end', () => {
  let platform: RunningPlatform;
  let client: OpenAI;

  beforeAll(async () => {
    platform = await startPlatform({ timeoutMs: 180_000 });
    client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 200_000);

  afterAll(async () => {
    await platform?.stop();
  });

  const http = (path: string, body: unknown) =>
    fetch(`${platform.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const balanceUsd = async () => {
    const res = await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${platform.adminKey}` } });
    return ((await res.json()) as any).balances.usd as number;
  };

  it('generates through the OpenAI client and through /image/generate, and charges the catalog price', async () => {
    const before = await balanceUsd();
    const result = await client.images.generate({
      model: 'dall-e-3',
      prompt: 'a purple square on a yellow background',
      size: '256x256',
      response_format: 'b64_json',
    });
    expect(await sharp(Buffer.from(result.data![0].b64_json!, 'base64')).metadata()).toMatchObject({ format: 'png', width: 256, height: 256 });

    const res = await http('/image/generate', {
      model: 'default',
      prompt: 'a blue circle',
      width: 320,
      height: 240,
      format: 'webp',
      return_binary: true,
      seed: 3,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(['true', 'false']).toContain(res.headers.get('x-svc-is-blurred'));
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({ format: 'webp', width: 320, height: 240 });

    let after = before;
    for (let i = 0; i < 50 && Math.round((before - after) * 1e9) < 2_000_000; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await balanceUsd();
    }
    expect(Math.round((before - after) * 1e9)).toBe(2_000_000);
  });

  it('lists styles and upscales', async () => {
    const styles = (await (await fetch(`${platform.apiUrl}/image/styles`)).json()) as any;
    expect(styles.data.length).toBeGreaterThan(5);
    const input = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    const up = await http('/image/upscale', { image: input.toString('base64'), scale: 2 });
    expect(up.status).toBe(200);
    expect(await sharp(Buffer.from(await up.arrayBuffer())).metadata()).toMatchObject({ format: 'png', width: 512, height: 512 });
  });
});
