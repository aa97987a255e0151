import sharp from 'sharp';
import { loadNsfwjsClassifier, NsfwClassifier } from '../../src/images/nsfw-classifier';

// The real safe-mode classifier: nsfwjs MobileNetV2 weights from the npm package on tfjs wasm.
describe('nsfwjs classifier (tfjs wasm backend)', () => {
  let classifier: NsfwClassifier;

  beforeAll(async () => {
    classifier = await loadNsfwjsClassifier();
  }, 120_000);

  afterAll(async () => {
    await classifier?.close();
  });

  it('scores ordinary pictures as not adult, as a probability', async () => {
    const flat = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .raw()
      .toBuffer();
    const started = Date.now();
    const score = await classifier.score(new Uint8Array(flat), 64, 48);
    const ms = Date.now() - started;
    expect(score).toBeGreaterThanOrEqual(0);
    expect(score).toBeLessThan(0.5);
    process.stdout.write(`nsfwjs score of a flat blue image: ${score.toFixed(4)} in ${ms} ms\n`);
  });

  it('gives the same score for the same pixels', async () => {
    const img = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#e0c0a0' } })
      .raw()
      .toBuffer();
    const a = await classifier.score(new Uint8Array(img), 32, 32);
    const b = await classifier.score(new Uint8Array(img), 32, 32);
    expect(a).toBe(b);
  });
});
