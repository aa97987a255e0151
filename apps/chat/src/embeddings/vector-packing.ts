/** Vectors as one row-major little-endian float32 buffer (the wire form of CreateEmbeddingsReply). */
export function packVectors(vectors: Float32Array[]): Buffer {
  const dims = vectors[0]?.length ?? 0;
  const out = Buffer.alloc(vectors.length * dims * 4);
  vectors.forEach((v, row) => {
    for (let i = 0; i < dims; i++) out.writeFloatLE(v[i], (row * dims + i) * 4);
  });
  return out;
}
