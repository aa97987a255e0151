import { imageConstraintsOf, loadCatalog, modelSchema } from '@svc/catalog';
import { DomainError } from '@svc/errors';
import { imageGenerateSchema } from './image-request.dto';
import { closestRatio, fitRatio, resolveGenerate } from './image-sizing';

const model = (constraints: Record<string, unknown>, pricing: Record<string, unknown> = { generation: { usd: 0.01, diem: 0.01 } }) =>
  modelSchema.parse({ id: 'img', name: 'Image', type: 'image', engine: { kind: 'embedded-onnx-diffusion', file: 'x.onnx' }, pricing, constraints });
const input = (over: Record<string, unknown> = {}) => imageGenerateSchema.parse({ model: 'img', prompt: 'a red circle', ...over });
const refusedField = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    return Object.keys((err as DomainError).details ?? {}).filter((k) => k !== '_errors');
  }
  return [];
};

describe('image sizing rules by model family', () => {
  it('pixel models take width/height (default 1024) within their maxima and divisor', () => {
    const pixels = model({ sizing: 'pixels', maxWidth: 1280, maxHeight: 1024, widthHeightDivisor: 8, steps: { default: 20, max: 50 } });
    expect(resolveGenerate(pixels, input())).toMatchObject({ width: 1024, height: 1024, steps: 20 });
    expect(resolveGenerate(pixels, input({ width: 1280, height: 720 }))).toMatchObject({ width: 1280, height: 720 });
    expect(refusedField(() => resolveGenerate(pixels, input({ height: 1032 })))).toEqual(['height']);
    expect(refusedField(() => resolveGenerate(pixels, input({ width: 1001 })))).toEqual(['width']);
    expect(refusedField(() => resolveGenerate(pixels, input({ steps: 51 })))).toEqual(['steps']);
    expect(refusedField(() => resolveGenerate(pixels, input({ resolution: '2K' })))).toEqual(['resolution']);
    // aspect_ratio without width/height sizes the long side to the default.
    expect(resolveGenerate(pixels, input({ aspect_ratio: '16:9' }))).toMatchObject({ width: 1024, height: 576 });
  });

  it('aspect-ratio models refuse width and height with 400 (like the Qwen Image family) and take a listed ratio', () => {
    const ratio = model({ sizing: 'aspect-ratio', aspectRatios: ['1:1', '16:9'], defaultAspectRatio: '1:1' });
    expect(refusedField(() => resolveGenerate(ratio, input({ width: 512 })))).toEqual(['width']);
    expect(refusedField(() => resolveGenerate(ratio, input({ resolution: '1K' })))).toEqual(['resolution']);
    expect(refusedField(() => resolveGenerate(ratio, input({ aspect_ratio: '4:3' })))).toEqual(['aspect_ratio']);
    expect(resolveGenerate(ratio, input({ aspect_ratio: '16:9' }))).toMatchObject({ width: 1024, height: 576 });
    expect(resolveGenerate(ratio, input())).toMatchObject({ width: 1024, height: 1024 });
  });

  it('tiered models take aspect_ratio and resolution, and bill by resolution x quality', () => {
    const pricing = { quality: { '1K': { low: { usd: 0.01, diem: 0.01 }, high: { usd: 0.03, diem: 0.03 } }, '2K': { high: { usd: 0.05, diem: 0.05 } } } };
    const tiered = model(
      {
        sizing: 'tiered',
        aspectRatios: ['1:1', '3:2'],
        resolutions: ['1K', '2K'],
        defaultResolution: '1K',
        qualities: ['low', 'high'],
        defaultQuality: 'high',
      },
      pricing,
    );
    expect(resolveGenerate(tiered, input({ aspect_ratio: '3:2', resolution: '2K' }))).toMatchObject({
      width: 2048,
      height: 1365,
      resolution: '2K',
      quality: 'high',
    });
    expect(resolveGenerate(tiered, input({ quality: 'low' }))).toMatchObject({ width: 1024, height: 1024, resolution: '1K', quality: 'low' });
    expect(refusedField(() => resolveGenerate(tiered, input({ resolution: '4K' })))).toEqual(['resolution']);
    expect(refusedField(() => resolveGenerate(tiered, input({ quality: 'medium' })))).toEqual(['quality']);
  });

  it('enforces the model prompt limit and style-reference support', () => {
    const limited = model({ promptCharacterLimit: 12, supportsStyleReferences: true, maxStyleReferences: 1 });
    expect(refusedField(() => resolveGenerate(limited, input({ prompt: 'x'.repeat(13) })))).toEqual(['prompt']);
    expect(refusedField(() => resolveGenerate(limited, input({ style_references: [{}, {}] })))).toEqual(['style_references']);
    expect(refusedField(() => resolveGenerate(model({}), input({ style_references: [{}] })))).toEqual(['style_references']);
  });

  it('fits ratios and finds the closest supported one', () => {
    expect(fitRatio([9, 16], 1024)).toEqual([576, 1024]);
    expect(fitRatio([3, 2], 1000, 64)).toEqual([1024, 640]);
    expect(closestRatio(1920, 1080, ['1:1', '16:9', '21:9'])).toBe('16:9');
    expect(closestRatio(500, 640, ['1:1', '4:5', '9:16'])).toBe('4:5');
  });
});

describe('the shipped catalog', () => {
  it('gives every image, edit and upscale model valid constraints, and prices each', () => {
    const catalog = loadCatalog();
    const models = [...catalog.ofType('image'), ...catalog.ofType('inpaint'), ...catalog.ofType('upscale')];
    expect(models.map((m) => m.id)).toEqual(expect.arrayContaining(['svc-zoo-image', 'svc-zoo-image-edit', 'svc-upscale-lanczos']));
    for (const m of models) expect(() => imageConstraintsOf(m)).not.toThrow();
    expect(imageConstraintsOf(catalog.get('svc-zoo-image')!)).toMatchObject({ sizing: 'pixels', maxWidth: 1280, promptCharacterLimit: 1500 });
    expect(catalog.get('svc-upscale-lanczos')!.engine.kind).toBe('embedded-sharp-resample');
    expect(() => imageConstraintsOf({ id: 'x', constraints: { sizing: 'round' } })).toThrow(/model x has invalid image constraints: sizing/);
  });
});
