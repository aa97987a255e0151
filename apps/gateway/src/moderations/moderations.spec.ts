import { Catalog, catalogSchema } from '@svc/catalog';
import { domainErrorOf } from '@svc/testing';
import { parseBody } from '../http/parse-body';
import { moderationModelFor } from './moderation-model';
import { checkTextSize, hasText, MODERATION_MAX_TEXT_BYTES, moderationsRequestSchema, requestedInputOf } from './moderations-request.dto';

const classifier = { id: 'img', name: 'img', type: 'moderation', engine: { kind: 'embedded-image-safety' }, traits: ['default'], pricing: {} };
const upstream = {
  id: 'up',
  name: 'up',
  type: 'moderation',
  engine: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'omni' },
  pricing: { per_request: { usd: 0.001, diem: 0.001 } },
};
const catalogOf = (...models: object[]) => new Catalog(catalogSchema.parse({ models }));

describe('POST /moderations request', () => {
  it('takes a string, strings, or text and image_url parts', () => {
    expect(requestedInputOf(parseBody(moderationsRequestSchema, { input: 'hi' }))).toEqual({ kind: 'texts', texts: ['hi'] });
    expect(requestedInputOf(parseBody(moderationsRequestSchema, { input: ['a', 'b'], model: 'm' }))).toEqual({ kind: 'texts', texts: ['a', 'b'] });
    const parts = requestedInputOf(
      parseBody(moderationsRequestSchema, {
        input: [
          { type: 'text', text: 't' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      }),
    );
    expect(parts).toEqual({
      kind: 'parts',
      parts: [
        { type: 'text', text: 't' },
        { type: 'image', url: 'data:image/png;base64,AAAA' },
      ],
    });
    expect(hasText(parts)).toBe(true);
    expect(hasText({ kind: 'parts', parts: [{ type: 'image', url: 'x' }] })).toBe(false);
  });

  it('refuses no input, an empty array, mixed items, five images and an image without url, on input', () => {
    const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png' } };
    for (const body of [
      {},
      { input: [] },
      { input: ['a', { type: 'text', text: 'b' }] },
      { input: Array(5).fill(image) },
      { input: [{ type: 'image_url', image_url: {} }] },
    ]) {
      const err = domainErrorOf(() => parseBody(moderationsRequestSchema, body));
      expect(err.status).toBe(400);
      expect(err.details?.input).toBeDefined();
    }
  });

  it('refuses more than 512 KiB of text', () => {
    expect(domainErrorOf(() => checkTextSize({ kind: 'texts', texts: ['x'.repeat(MODERATION_MAX_TEXT_BYTES + 1)] })).status).toBe(400);
    expect(() => checkTextSize({ kind: 'texts', texts: ['x'.repeat(MODERATION_MAX_TEXT_BYTES)] })).not.toThrow();
  });
});

describe('the moderation model of a request', () => {
  it('refuses text with a 400 saying no text moderation model is configured when only the image classifier is', () => {
    const catalog = catalogOf(classifier);
    for (const requested of [undefined, 'img']) {
      const err = domainErrorOf(() => moderationModelFor(catalog, requested, true));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/^No text moderation model is configured on this server/);
    }
    expect(moderationModelFor(catalog, undefined, false).id).toBe('img');
  });

  it('sends text to a model that reads it: the named one, or the first when the default does not', () => {
    const catalog = catalogOf(classifier, upstream);
    expect(moderationModelFor(catalog, undefined, true).id).toBe('up');
    expect(moderationModelFor(catalog, undefined, false).id).toBe('img');
    expect(moderationModelFor(catalog, 'up', false).id).toBe('up');
    const err = domainErrorOf(() => moderationModelFor(catalog, 'img', true));
    expect([err.status, err.message]).toEqual([400, 'Model img moderates images only; for text use up.']);
  });

  it('answers 404 for a name that is not a moderation model', () => {
    expect(domainErrorOf(() => moderationModelFor(catalogOf(classifier), 'gpt-4o', false)).status).toBe(404);
  });
});

describe('moderation models in the catalog', () => {
  it('are priced by per_request only, on the image classifier or an upstream', () => {
    expect(catalogSchema.safeParse({ models: [classifier, upstream] }).success).toBe(true);
    const priced = catalogSchema.safeParse({ models: [{ ...upstream, pricing: { input: { usd: 1, diem: 1 } } }] });
    expect(priced.success).toBe(false);
    expect(JSON.stringify(priced.error?.issues)).toContain('priced by per_request');
    const engine = catalogSchema.safeParse({ models: [{ ...classifier, engine: { kind: 'embedded-sharp-matte' } }] });
    expect(engine.success).toBe(false);
  });
});
