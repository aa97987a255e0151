import { imageEditSchema, imageGenerateSchema, imageUpscaleSchema, openAiImageSchema } from './image-request.dto';

const base = { model: 'm', prompt: 'a red circle' };
const fieldOf = (schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } }, body: unknown) => {
  const r = schema.safeParse(body);
  return r.success ? null : String(r.error!.issues[0].path[0]);
};

describe('POST /image/generate validation (every bound, both sides)', () => {
  // [field, a value just inside, a value just outside (below), a value just outside (above)]
  const bounds: Array<[string, unknown, unknown, unknown]> = [
    ['prompt', 'x'.repeat(7500), '', 'x'.repeat(7501)],
    ['cfg_scale', 20, 0, 20.01],
    ['width', 1280, 0, 1281],
    ['height', 1, 0, 1281],
    ['lora_strength', 100, -1, 101],
    ['negative_prompt', 'x'.repeat(7500), undefined, 'x'.repeat(7501)],
    ['variants', 4, 0, 5],
    ['seed', -999_999_999, -1_000_000_000, 1_000_000_000],
    ['steps', 1, 0, undefined],
  ];
  it.each(bounds)('%s: accepts the edge, refuses both sides', (field, inside, below, above) => {
    expect(fieldOf(imageGenerateSchema, { ...base, [field]: inside })).toBeNull();
    if (below !== undefined) expect(fieldOf(imageGenerateSchema, { ...base, [field]: below })).toBe(field);
    if (above !== undefined) expect(fieldOf(imageGenerateSchema, { ...base, [field]: above })).toBe(field);
  });

  it('fills the defaults of the spec', () => {
    expect(imageGenerateSchema.parse(base)).toMatchObject({
      format: 'webp',
      safe_mode: true,
      return_binary: false,
      hide_watermark: false,
      embed_exif_metadata: false,
      enhance_prompt: false,
    });
  });

  it('refuses wrong types and enumerations by field', () => {
    expect(fieldOf(imageGenerateSchema, { ...base, width: 10.5 })).toBe('width');
    expect(fieldOf(imageGenerateSchema, { ...base, format: 'gif' })).toBe('format');
    expect(fieldOf(imageGenerateSchema, { ...base, resolution: '8K' })).toBe('resolution');
    expect(fieldOf(imageGenerateSchema, { ...base, quality: 'ultra' })).toBe('quality');
    expect(fieldOf(imageGenerateSchema, { ...base, aspect_ratio: 'wide' })).toBe('aspect_ratio');
    expect(fieldOf(imageGenerateSchema, { ...base, safe_mode: 'yes' })).toBe('safe_mode');
    expect(fieldOf(imageGenerateSchema, { prompt: 'x' })).toBe('model');
  });

  it('allows variants only without return_binary', () => {
    expect(fieldOf(imageGenerateSchema, { ...base, variants: 2, return_binary: true })).toBe('variants');
    expect(fieldOf(imageGenerateSchema, { ...base, variants: 2 })).toBeNull();
    expect(fieldOf(imageGenerateSchema, { ...base, variants: 1, return_binary: true })).toBeNull();
  });

  it('accepts and ignores inpaint', () => {
    expect(fieldOf(imageGenerateSchema, { ...base, inpaint: { anything: true } })).toBeNull();
  });
});

describe('edit, upscale and OpenAI shapes', () => {
  it('edit: prompt 1-32768, resolution 1-10 characters, aspect ratios of the spec, multipart text fields', () => {
    const edit = { image: 'aGVsbG8=', prompt: 'x' };
    expect(fieldOf(imageEditSchema, { ...edit, prompt: 'x'.repeat(32768) })).toBeNull();
    expect(fieldOf(imageEditSchema, { ...edit, prompt: 'x'.repeat(32769) })).toBe('prompt');
    expect(fieldOf(imageEditSchema, { ...edit, prompt: '' })).toBe('prompt');
    expect(fieldOf(imageEditSchema, { ...edit, resolution: '' })).toBe('resolution');
    expect(fieldOf(imageEditSchema, { ...edit, resolution: 'x'.repeat(11) })).toBe('resolution');
    expect(fieldOf(imageEditSchema, { ...edit, aspect_ratio: '5:1' })).toBe('aspect_ratio');
    expect(fieldOf(imageEditSchema, { ...edit, output_format: 'gif' })).toBe('output_format');
    expect(fieldOf(imageEditSchema, { prompt: 'x' })).toBe('image');
    expect(imageEditSchema.parse({ ...edit, safe_mode: 'false', seed: '12' })).toMatchObject({ safe_mode: false, seed: 12, resolution: '1K' });
  });

  it('upscale: scale 2-4 (numbers or multipart text), creativity 0-1', () => {
    const up = { image: 'aGVsbG8=' };
    expect(imageUpscaleSchema.parse(up).scale).toBe(2);
    expect(imageUpscaleSchema.parse({ ...up, scale: '4' }).scale).toBe(4);
    expect(fieldOf(imageUpscaleSchema, { ...up, scale: 1.99 })).toBe('scale');
    expect(fieldOf(imageUpscaleSchema, { ...up, scale: 4.01 })).toBe('scale');
    expect(fieldOf(imageUpscaleSchema, { ...up, creativity: -0.1 })).toBe('creativity');
    expect(fieldOf(imageUpscaleSchema, { ...up, creativity: 1.1 })).toBe('creativity');
  });

  it('OpenAI generations: n 1-4, size WxH or auto, response_format', () => {
    expect(fieldOf(openAiImageSchema, { prompt: 'x', n: 0 })).toBe('n');
    expect(fieldOf(openAiImageSchema, { prompt: 'x', n: 5 })).toBe('n');
    expect(fieldOf(openAiImageSchema, { prompt: 'x', size: 'big' })).toBe('size');
    expect(fieldOf(openAiImageSchema, { prompt: 'x', response_format: 'png' })).toBe('response_format');
    expect(openAiImageSchema.parse({ prompt: 'x', size: '256x256' })).toMatchObject({ model: 'default', size: '256x256' });
  });
});
