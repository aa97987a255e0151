import { domainErrorOf } from '@svc/testing';
import { parseBody } from '../http/parse-body';
import { checkRerankSize, documentTextsOf, RERANK_MAX_BYTES, rerankRequestSchema } from './rerank-request.dto';
import { rankByCosine } from './rerank-scoring';

/** Row-major float32 rows, as the chat service packs vectors. */
function pack(rows: number[][]): Buffer {
  const out = Buffer.alloc(rows.length * rows[0].length * 4);
  rows.flat().forEach((v, i) => out.writeFloatLE(v, i * 4));
  return out;
}

describe('POST /rerank request', () => {
  it('takes strings or {text} objects, return_documents false by default', () => {
    const request = parseBody(rerankRequestSchema, { model: 'm', query: 'q', documents: ['a', { text: 'b', id: 'x' }], top_n: 1 });
    expect(request.return_documents).toBe(false);
    expect(documentTextsOf(request)).toEqual(['a', 'b']);
  });

  it('refuses a missing model, an empty query or document, no documents, over 1,000 and a bad top_n, naming the field', () => {
    const cases: Array<[unknown, string]> = [
      [{ query: 'q', documents: ['a'] }, 'model'],
      [{ model: 'm', query: '', documents: ['a'] }, 'query'],
      [{ model: 'm', query: 'q', documents: [] }, 'documents'],
      [{ model: 'm', query: 'q', documents: ['a', ''] }, 'documents'],
      [{ model: 'm', query: 'q', documents: [{ text: '' }] }, 'documents'],
      [{ model: 'm', query: 'q', documents: Array.from({ length: 1001 }, () => 'd') }, 'documents'],
      [{ model: 'm', query: 'q', documents: ['a'], top_n: 0 }, 'top_n'],
      [{ model: 'm', query: 'q', documents: ['a'], top_n: 1.5 }, 'top_n'],
    ];
    for (const [body, field] of cases) {
      const err = domainErrorOf(() => parseBody(rerankRequestSchema, body));
      expect(err.status).toBe(400);
      expect(err.details?.[field]).toBeDefined();
    }
  });

  it('refuses more documents than the model embeds with the query in one batch, and more than 4 MiB in all', () => {
    expect(() => checkRerankSize('q', ['a', 'b'], 'm', 3)).not.toThrow();
    const batch = domainErrorOf(() => checkRerankSize('q', ['a', 'b', 'c'], 'm', 3));
    expect([batch.status, batch.message]).toEqual([400, 'documents has 3 items; model m ranks at most 2 per request.']);
    const big = domainErrorOf(() => checkRerankSize('q', ['x'.repeat(RERANK_MAX_BYTES)], 'm', 2048));
    expect(big.status).toBe(400);
    expect(big.details?.documents).toBeDefined();
  });
});

describe('ranking by cosine similarity', () => {
  it('puts the document pointing the way of the query first, whatever the lengths, and keeps indices', () => {
    const vectors = pack([
      [1, 0, 0],
      [0, 1, 0],
      [10, 1, 0],
      [-1, 0, 0],
      [1, 1, 0],
    ]);
    const ranked = rankByCosine(vectors, 5, 3);
    expect(ranked.map((r) => r.index)).toEqual([1, 3, 0, 2]);
    expect(ranked[0].relevance_score).toBeCloseTo(10 / Math.sqrt(101), 6);
    expect(ranked[1].relevance_score).toBeCloseTo(Math.SQRT1_2, 6);
    expect(ranked[3].relevance_score).toBeCloseTo(-1, 6);
  });

  it('keeps the request order for equal scores, scores a zero vector 0, and answers top_n', () => {
    const vectors = pack([
      [0, 2],
      [0, 0],
      [0, 1],
      [0, 3],
    ]);
    expect(rankByCosine(vectors, 4, 2)).toEqual([
      { index: 1, relevance_score: 1 },
      { index: 2, relevance_score: 1 },
      { index: 0, relevance_score: 0 },
    ]);
    expect(rankByCosine(vectors, 4, 2, 1)).toEqual([{ index: 1, relevance_score: 1 }]);
    expect(rankByCosine(vectors, 4, 2, 10)).toHaveLength(3);
  });

  it('refuses a buffer of the wrong size', () => {
    expect(() => rankByCosine(Buffer.alloc(12), 2, 2)).toThrow(/expected 2x2/);
  });
});
