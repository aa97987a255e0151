import { ChatStack, startChatStack } from './support/chat-stack';

/**
 * Liveness and readiness with a model service missing (issue 21, "Lifecycle"): a gateway whose
 * stack has keys and chat but no media service stays ready and keeps serving, answers the image
 * route 503 in the one error shape with `retry-after`, and only `/healthz` names media missing.
 */
const CATALOG = `
models:
  - id: plain
    name: Upstream
    type: text
    engine: { kind: openai-compatible, baseUrl: "http://127.0.0.1:9/v1", model: plain-upstream, timeoutMs: 10000 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 8192
    maxCompletionTokens: 512
    capabilities: { supportsXSearch: false }
  - id: svc-zoo-image
    name: Image
    type: image
    engine: { kind: embedded-onnx-diffusion, file: zoo/image/svc-zoo-image.onnx, maxParallel: 1, maxQueue: 8 }
    traits: [default]
    pricing: { generation: { usd: 0.001, diem: 0.001 } }
    constraints: { sizing: pixels, nativeResolution: 32, maxWidth: 1280, maxHeight: 1280, promptCharacterLimit: 1500, steps: { default: 20, max: 100 }, cfgScale: { default: 4, max: 20 } }
`;

let stack: ChatStack;
let base: string;

beforeAll(async () => {
  stack = await startChatStack({ name: 'probes', catalog: CATALOG });
  base = stack.api.replace(/\/api\/v1$/, '');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe('a gateway with the media service missing', () => {
  it('is alive and ready, and /healthz names media as missing', async () => {
    const live = await fetch(`${base}/livez`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', draining: false, nats: 'ok', redis: 'ok' });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { missing: string[] }).missing).toContain('media');
  });

  it("answers the missing service's route 503 with retry-after in the one error shape, and serves the rest", async () => {
    const image = await stack.request('/image/generate', { body: { model: 'svc-zoo-image', prompt: 'a red square', width: 256, height: 256 } });
    expect(image.status).toBe(503);
    expect(image.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(image.body).toEqual({ error: 'The media service is unavailable. Try again shortly.' });
    const models = await stack.request('/models');
    expect(models.status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});
