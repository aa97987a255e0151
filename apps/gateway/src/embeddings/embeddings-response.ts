/** The OpenAI-compatible `POST /embeddings` response. */
export interface EmbeddingsResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/**
 * Row-major little-endian float32 vectors as the response's `data`: float arrays, or per vector the
 * base64 of its float32 bytes (what OpenAI returns for `encoding_format: "base64"`).
 */
export function toEmbeddingData(packed: Buffer, count: number, dimensions: number, format: 'float' | 'base64'): EmbeddingsResponse['data'] {
  if (packed.length !== count * dimensions * 4) throw new Error(`expected ${count}x${dimensions} float32 values, got ${packed.length} bytes`);
  const rowBytes = dimensions * 4;
  return Array.from({ length: count }, (_, index) => {
    const row = packed.subarray(index * rowBytes, (index + 1) * rowBytes);
    if (format === 'base64') return { object: 'embedding', index, embedding: row.toString('base64') };
    const embedding = new Array<number>(dimensions);
    for (let i = 0; i < dimensions; i++) embedding[i] = row.readFloatLE(i * 4);
    return { object: 'embedding', index, embedding };
  });
}
