import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErrorCode } from '@svc/errors';
import { loadCatalog } from '.';

function catalogFile(yaml: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'catalog-')), 'models.yaml');
  writeFileSync(file, yaml);
  return file;
}

const upstream = (id: string, extra = '') => `
  - id: ${id}
    name: ${id}
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${UP_URL:-http://127.0.0.1:8000/v1}", model: m }
    pricing: { input: { usd: 1, diem: 1 }, output: { usd: 2, diem: 2 } }${extra}`;

describe('model catalog', () => {
  it('loads the shipped catalog with a default text model', () => {
    const catalog = loadCatalog();
    expect(catalog.traits('text').default).toBeDefined();
    expect(catalog.resolve('default', 'text')?.id).toBe(catalog.traits('text').default);
  });

  it('resolves ids, traits and compatibility names, only for the asked type', () => {
    const catalog = loadCatalog(catalogFile(`models:${upstream('a', '\n    traits: [default]')}${upstream('b')}\ncompatibilityMapping: { gpt-4o: b }\n`));
    expect(catalog.resolve('a', 'text')?.id).toBe('a');
    expect(catalog.resolve('default', 'text')?.id).toBe('a');
    expect(catalog.resolve('gpt-4o', 'text')?.id).toBe('b');
    expect(catalog.resolve('a', 'image')).toBeUndefined();
    expect(catalog.resolve('zzz', 'text')).toBeUndefined();
  });

  it('requires a model: the resolved one, or a 404 that names the discovery route', () => {
    const catalog = loadCatalog(catalogFile(`models:${upstream('a', '\n    traits: [default]')}\n`));
    expect(catalog.require('default', 'text').id).toBe('a');
    const missing = (() => {
      try {
        catalog.require('a', 'image');
      } catch (err) {
        return err;
      }
    })();
    expect(missing).toMatchObject({
      code: ErrorCode.ModelNotFound,
      message: 'Model "a" does not exist or is not an image model. See GET /api/v1/models?type=image.',
    });
    expect(() => catalog.require('zzz', 'tts', 'a voice model')).toThrow(
      'Model "zzz" does not exist or is not a voice model. See GET /api/v1/models?type=tts.',
    );
  });

  it('names a model for GET /models/{id}: an id or compatibility name of any type, a trait of the asked type', () => {
    const catalog = loadCatalog(
      catalogFile(`models:${upstream('a', '\n    traits: [default]')}${upstream('b', '\n    traits: [fastest]')}\ncompatibilityMapping: { gpt-4o: b }\n`),
    );
    expect(catalog.named('a', 'image')?.id).toBe('a');
    expect(catalog.named('gpt-4o', 'image')?.id).toBe('b');
    expect(catalog.named('default', 'text')?.id).toBe('a');
    expect(catalog.named('fastest', 'text')?.id).toBe('b');
    expect(catalog.named('default', 'image')).toBeUndefined();
    expect(catalog.named('constructor', 'text')).toBeUndefined();
    expect(catalog.named('zzz', 'text')).toBeUndefined();
  });

  it('maps the OpenAI speech and transcription model names of the shipped catalog to its audio models', () => {
    const catalog = loadCatalog();
    for (const name of ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts']) expect(catalog.resolve(name, 'tts')?.id).toBe(catalog.traits('tts').default);
    for (const name of ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe'])
      expect(catalog.resolve(name, 'asr')?.id).toBe(catalog.traits('asr').default);
  });

  it('prices the /augment/* tools from its augment section, free when left out', () => {
    expect(loadCatalog().augmentTool('search')).toMatchObject({ id: 'svc-augment-search', type: 'augment', pricing: { per_request: { usd: 0.01 } } });
    const file = catalogFile(`models:${upstream('a')}\naugment:\n  scrape: { pricing: { per_request: { usd: 0.5, diem: 1 } } }\n`);
    expect(loadCatalog(file).augmentTool('scrape').pricing).toEqual({ per_request: { usd: 0.5, diem: 1 } });
    expect(loadCatalog(file).augmentTool('text-parser').pricing).toEqual({ per_request: { usd: 0, diem: 0 } });
    expect(() => loadCatalog(catalogFile(`models:${upstream('a')}\naugment: { translate: {} }\n`))).toThrow(/augment/);
  });

  it('interpolates environment variables with defaults', () => {
    const file = catalogFile(`models:${upstream('a')}\n`);
    expect(loadCatalog(file, {}).get('a')?.engine).toMatchObject({ baseUrl: 'http://127.0.0.1:8000/v1' });
    expect(loadCatalog(file, { UP_URL: 'http://gpu-box:9000/v1' }).get('a')?.engine).toMatchObject({ baseUrl: 'http://gpu-box:9000/v1' });
  });

  it('explains what is wrong with an invalid catalog', () => {
    expect(() => loadCatalog(catalogFile('models:\n  - id: BAD ID\n'))).toThrow(/models\.0\.id/);
    expect(() => loadCatalog(catalogFile(`models:${upstream('a')}${upstream('a')}\n`))).toThrow(/duplicate model id a/);
    expect(() => loadCatalog(catalogFile(`models:${upstream('a')}\ncompatibilityMapping: { x: nope }\n`))).toThrow(/unknown model nope/);
    expect(() => loadCatalog('/nonexistent/models.yaml')).toThrow(/Cannot read model catalog/);
  });
});
