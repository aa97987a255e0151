/** One ranked document: its index in the request and its cosine similarity to the query. */
export interface RankedDocument {
  index: number;
  relevance_score: number;
}

/**
 * Ranks documents by the cosine similarity of their vectors to the query's. `vectors` is
 * `count x dimensions` little-endian float32, row-major: row 0 the query, rows 1.. the documents.
 * Best first; equal scores keep the request's order; a zero vector (no word the model knows)
 * scores 0. At most `topN` results.
 */
export function rankByCosine(vectors: Buffer, count: number, dimensions: number, topN = count - 1): RankedDocument[] {
  if (count < 1 || vectors.length !== count * dimensions * 4) throw new Error(`expected ${count}x${dimensions} float32 values, got ${vectors.length} bytes`);
  const row = (r: number) => {
    const out = new Float64Array(dimensions);
    for (let i = 0; i < dimensions; i++) out[i] = vectors.readFloatLE((r * dimensions + i) * 4);
    return out;
  };
  const norm = (v: Float64Array) => {
    let sum = 0;
    for (const x of v) sum += x * x;
    return Math.sqrt(sum);
  };
  const query = row(0);
  const queryNorm = norm(query);
  const ranked: RankedDocument[] = [];
  for (let r = 1; r < count; r++) {
    const doc = row(r);
    let dot = 0;
    for (let i = 0; i < dimensions; i++) dot += query[i] * doc[i];
    const norms = queryNorm * norm(doc);
    // Float32 rounding can carry a similarity a hair past +-1.
    const score = norms === 0 ? 0 : Math.max(-1, Math.min(1, dot / norms));
    ranked.push({ index: r - 1, relevance_score: score });
  }
  ranked.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  return ranked.slice(0, Math.max(0, topN));
}
