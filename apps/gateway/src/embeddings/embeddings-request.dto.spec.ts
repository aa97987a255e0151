import { domainErrorOf } from '@svc/testing';
import { parseBody } from '../http/parse-body';
import { embeddingsRequestSchema, inputsOf, rejectTokenArrays } from './embeddings-request.dto';
import { toEmbeddingData } from './embeddings-response';
import { estimateEmbeddingTokens } from './embeddings-usage';

const error = domainErrorOf;

describe('POST /embeddings request', () => {
  it('accepts a string or an array of strings, float by default', () => {
    expect(parseBody(embeddingsRequestSchema, { model: 'm', input: 'hello' })).toEqual({ model: 'm', input: 'hello', encoding_format: 'float' });
    const many = parseBody(embeddingsRequestSchema, { model: 'm', input: ['a', 'b'], encoding_format: 'base64', dimensions: 32, user: 'u1' });
    expect(inputsOf(many)).toEqual(['a', 'b']);
  });

  it('refuses token ID arrays (flat or nested) with a message saying what to send', () => {
    for (const input of [
      [1, 2, 3],
      [[1, 2], [3]],
    ]) {
      const err = error(() => rejectTokenArrays({ model: 'm', input }));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/arrays of token IDs are not supported/);
      expect(err.details?.input).toEqual({ _errors: ['token ID arrays are not supported; send text'] });
    }
    expect(() => rejectTokenArrays({ model: 'm', input: ['text'] })).not.toThrow();
  });

  it('refuses empty input, empty items, over 2048 items, unknown encodings and bad dimensions with details by field', () => {
    const cases: Array<[unknown, string]> = [
      [{ model: 'm', input: '' }, 'input'],
      [{ model: 'm', input: [] }, 'input'],
      [{ model: 'm', input: ['ok', ''] }, 'input'],
      [{ model: 'm', input: Array.from({ length: 2049 }, () => 'x') }, 'input'],
      [{ model: 'm', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
      [{ model: 'm', input: 'x', dimensions: 0 }, 'dimensions'],
      [{ model: 'm', input: 'x', dimensions: 1.5 }, 'dimensions'],
      [{ input: 'x' }, 'model'],
    ];
    for (const [body, field] of cases) {
      const err = error(() => parseBody(embeddingsRequestSchema, body));
      expect(err.status).toBe(400);
      expect(err.details?.[field]).toBeDefined();
    }
  });
});

describe('embedding response data', () => {
  const packed = Buffer.alloc(2 * 3 * 4);
  [0.5, -1, 0.25, 3, 0, -0.125].forEach((v, i) => packed.writeFloatLE(v, i * 4));

  it('gives float arrays, or per vector the base64 of its little-endian float32 bytes, which decode to the same numbers', () => {
    const floats = toEmbeddingData(packed, 2, 3, 'float');
    expect(floats).toEqual([
      { object: 'embedding', index: 0, embedding: [0.5, -1, 0.25] },
      { object: 'embedding', index: 1, embedding: [3, 0, -0.125] },
    ]);
    const b64 = toEmbeddingData(packed, 2, 3, 'base64');
    const decoded = b64.map((d) => Array.from(new Float32Array(new Uint8Array(Buffer.from(d.embedding as string, 'base64')).buffer)));
    expect(decoded).toEqual(floats.map((d) => d.embedding));
  });

  it('refuses a buffer of the wrong size', () => {
    expect(() => toEmbeddingData(packed, 3, 3, 'float')).toThrow(/expected 3x3/);
  });
});

describe('embedding worst case', () => {
  it('bounds tokens by UTF-8 bytes plus special tokens, capped per input by the model limit', () => {
    expect(estimateEmbeddingTokens(['abc', 'é'], { maxInputTokens: 8192 })).toBe(3 + 2 + 2 + 2);
    expect(estimateEmbeddingTokens(['x'.repeat(100)], { maxInputTokens: 10 })).toBe(10);
  });
});
