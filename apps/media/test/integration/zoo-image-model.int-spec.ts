import * as path from 'node:path';
import { loadCatalog } from '@svc/catalog';
import { REPO_ROOT } from '@svc/config';
import { checkSha256Sums } from '@svc/testing';
import { dominantColours } from '../../src/engines/diffusion/colour-adherence';
import { loadDiffusionModelConfig } from '../../src/engines/diffusion/diffusion-model-config';
import { OnnxDiffusionEngine } from '../../src/engines/diffusion/onnx-diffusion.engine';

// The committed zoo image model through onnxruntime-node: colour and background adherence on a
// fixed seed set (the same prompts and seeds as models/zoo/image/evaluate.py with --seeds 1).

const MODELS_DIR = path.join(REPO_ROOT, 'models');
const COLOURS = ['red', 'orange', 'yellow', 'green', 'blue', 'purple', 'black', 'white'];
const SHAPES = ['circle', 'square', 'triangle', 'star', 'ring', 'cross'];
const BACKGROUNDS = ['white', 'black', 'gray', 'blue', 'yellow'];
/** The bar (39 of 48); the model card reports 83.3% (40 of 48) for this seed set (models/zoo/image/MODEL_CARD.md). */
const MIN_COLOUR_ADHERENCE = 0.8;
/** The card reports 83.3% background adherence on this set; the test allows one prompt less. */
const MIN_BACKGROUND_ADHERENCE = 0.8;

function hasOnnxRuntime(): boolean {
  try {
    require.resolve('onnxruntime-node');
    return true;
  } catch {
    process.stderr.write('zoo-image-model.int-spec: onnxruntime-node is not installed, so the image model tests are skipped\n');
    return false;
  }
}

describe('zoo image model files', () => {
  const model = loadCatalog().get('svc-zoo-image');

  it('is an image model whose files match SHA256SUMS', () => {
    expect(model?.type).toBe('image');
    const { files, mismatched } = checkSha256Sums(path.join(MODELS_DIR, 'zoo', 'image'));
    expect(files).toHaveLength(2);
    expect(mismatched).toEqual([]);
  });

  it('has a valid sidecar with its native resolution', () => {
    const config = loadDiffusionModelConfig(path.join(MODELS_DIR, 'zoo', 'image', 'svc-zoo-image.json'));
    expect(config.resolution).toBe(32);
    expect(config.vocab.slice(0, 2)).toEqual(['<pad>', '<unk>']);
  });
});

(hasOnnxRuntime() ? describe : describe.skip)('zoo image model through onnxruntime-node', () => {
  const model = loadCatalog().get('svc-zoo-image');
  let engine: OnnxDiffusionEngine;

  beforeAll(async () => {
    if (model?.engine.kind !== 'embedded-onnx-diffusion') throw new Error('svc-zoo-image must be an embedded-onnx-diffusion model');
    engine = new OnnxDiffusionEngine({ modelPath: path.join(MODELS_DIR, model.engine.file), threads: 1 });
    await engine.ready();
  });

  afterAll(async () => {
    await engine?.close();
  });

  it(`draws the requested colour at least ${MIN_COLOUR_ADHERENCE * 100}% and background ${MIN_BACKGROUND_ADHERENCE * 100}% of the time`, async () => {
    let colourOk = 0;
    let backgroundOk = 0;
    let total = 0;
    for (const [ci, colour] of COLOURS.entries()) {
      for (const [si, shape] of SHAPES.entries()) {
        const background = BACKGROUNDS.filter((b) => b !== colour)[(ci + si) % 4];
        const img = await engine.generate({ prompt: `a ${colour} ${shape} on a ${background} background`, seed: 1000, steps: 20, cfgScale: 8 });
        const seen = dominantColours(img.rgb, img.width);
        if (seen.object === colour) colourOk++;
        if (seen.background === background) backgroundOk++;
        total++;
      }
    }
    expect(colourOk / total).toBeGreaterThanOrEqual(MIN_COLOUR_ADHERENCE);
    expect(backgroundOk / total).toBeGreaterThanOrEqual(MIN_BACKGROUND_ADHERENCE);
  });

  it('upscales to the requested size and edits an input image towards the prompt', async () => {
    const big = await engine.generate({ prompt: 'a red circle on a white background', seed: 1, steps: 10, width: 128, height: 128 });
    expect([big.width, big.height, big.nativeResolution]).toEqual([128, 128, 32]);
    const init = { data: new Uint8Array(32 * 32 * 3).fill(250), width: 32, height: 32, channels: 3 as const };
    const edited = await engine.generate({ prompt: 'a blue square on a white background', seed: 2, steps: 20, init, strength: 0.9 });
    expect(dominantColours(edited.rgb, 32).object).toBe('blue');
  });
});
