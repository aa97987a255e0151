import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DomainError, ErrorCode } from '@svc/errors';
import { DenoiserInputs, DenoiserSession } from './onnx-session';
import { OnnxDiffusionEngine } from './onnx-diffusion.engine';

// A fake denoiser whose "noise" prediction pulls every pixel towards a colour chosen by the first
// prompt token: enough to check the sampling loop, guidance, image-to-image and the queue.
class FakeSession implements DenoiserSession {
  calls = 0;
  gate?: Promise<void>;
  async run(i: DenoiserInputs): Promise<Float32Array> {
    this.calls++;
    if (this.gate) await this.gate;
    const n = 3 * i.size * i.size;
    const out = new Float32Array(i.batch * n);
    for (let b = 0; b < i.batch; b++) {
      const target = Number(i.tokens[b * i.maxTokens]) === 3 ? [1, -1, -1] : [0, 0, 0];
      for (let c = 0; c < 3; c++) {
        for (let p = 0; p < i.size * i.size; p++) {
          const k = b * n + c * i.size * i.size + p;
          out[k] = (i.x[k] - target[c]) * 0.9;
        }
      }
    }
    return out;
  }
  async release(): Promise<void> {}
}

function writeConfig(dir: string): string {
  const file = path.join(dir, 'fake.json');
  const alphas = Array.from({ length: 1000 }, (_, t) => Math.max(1e-4, Math.cos(((t / 1000 + 0.008) / 1.008) * (Math.PI / 2)) ** 2));
  fs.writeFileSync(
    file,
    JSON.stringify({
      format: 'svc-diffusion-v1',
      resolution: 8,
      channels: 3,
      prediction: 'epsilon',
      maxTokens: 4,
      timesteps: 1000,
      alphasCumprod: alphas,
      defaults: { steps: 6, guidance: 3 },
      tokenizer: { type: 'word', lowercase: true, pad: 0, unk: 1 },
      vocab: ['<pad>', '<unk>', 'a', 'red'],
    }),
  );
  return file;
}

describe('OnnxDiffusionEngine (fake denoiser)', () => {
  let dir: string;
  let session: FakeSession;
  let engine: OnnxDiffusionEngine;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'diffusion-'));
    session = new FakeSession();
    engine = new OnnxDiffusionEngine({
      modelPath: path.join(dir, 'fake.onnx'),
      configPath: writeConfig(dir),
      maxParallel: 1,
      maxQueue: 1,
      sessionFactory: async () => session,
    });
    await engine.ready();
  });

  afterEach(async () => {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('follows the prompt through guidance and is deterministic for a seed', async () => {
    const a = await engine.generate({ prompt: 'red', seed: 3 });
    const b = await engine.generate({ prompt: 'red', seed: 3 });
    expect(Buffer.from(a.rgb)).toEqual(Buffer.from(b.rgb));
    expect(session.calls).toBe(12);
    const meanR = a.rgb.filter((_, i) => i % 3 === 0).reduce((s, v) => s + v, 0) / 64;
    const meanG = a.rgb.filter((_, i) => i % 3 === 1).reduce((s, v) => s + v, 0) / 64;
    expect(meanR).toBeGreaterThan(200);
    expect(meanG).toBeLessThan(60);
    expect(a.png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('upscales to the requested size and reports unknown words', async () => {
    const img = await engine.generate({ prompt: 'a red zebra', seed: 1, width: 20, height: 12, steps: 2 });
    expect([img.width, img.height, img.nativeResolution, img.rgb.length]).toEqual([20, 12, 8, 20 * 12 * 3]);
    expect(img.unknownWords).toEqual(['zebra']);
  });

  it('image-to-image runs only the strength fraction of the schedule', async () => {
    const init = { data: new Uint8Array(16 * 16 * 3).fill(255), width: 16, height: 16, channels: 3 as const };
    await engine.generate({ prompt: 'red', seed: 1, steps: 10, init, strength: 0.3 });
    expect(session.calls).toBe(10);
  });

  it('rejects invalid requests and answers 503 when the queue is full', async () => {
    await expect(engine.generate({ prompt: 'x', width: 5000 })).rejects.toMatchObject({ code: ErrorCode.Validation });
    let open!: () => void;
    session.gate = new Promise((r) => (open = r));
    const running = engine.generate({ prompt: 'red', seed: 1, steps: 1 });
    const queued = engine.generate({ prompt: 'red', seed: 2, steps: 1 });
    await new Promise((r) => setImmediate(r));
    const rejected = engine.generate({ prompt: 'red', seed: 3, steps: 1 });
    await expect(rejected).rejects.toBeInstanceOf(DomainError);
    await expect(rejected).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable });
    open();
    await expect(Promise.all([running, queued])).resolves.toHaveLength(2);
  });
});
