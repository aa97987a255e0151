import * as fs from 'node:fs';
import { z } from 'zod';

/**
 * `.svec` word-vector files: "SVEC", u32 LE header length, a JSON header, then `count` rows of
 * `dim` float16 values. Written by models/zoo/embeddings/train.py; docs/models.md shows how to
 * convert other word vectors (word2vec/GloVe text) to it.
 */
const headerSchema = z.object({
  format: z.literal('svc-word-vectors-v1'),
  dim: z.number().int().positive(),
  count: z.number().int().positive(),
  lowercase: z.boolean(),
  tokenPattern: z.string().min(1),
  pooling: z.literal('sif-mean'),
  /** Unit vector projected out of every sentence vector (SIF's common component); empty for none. */
  removeComponent: z.array(z.number()),
  words: z.array(z.string()),
  /** Per-word weight in the mean (SIF: a / (a + p(word))); all 1 for a plain mean. */
  weights: z.array(z.number()),
  source: z.string().optional(),
});
export type SvecHeader = z.infer<typeof headerSchema>;

export interface SvecModel {
  header: SvecHeader;
  vectors: Float32Array;
}

export function readSvec(file: string): SvecModel {
  const buf = fs.readFileSync(file);
  if (buf.length < 8 || buf.toString('ascii', 0, 4) !== 'SVEC') throw new Error(`${file} is not an .svec word-vector file`);
  const headerLength = buf.readUInt32LE(4);
  const parsed = headerSchema.safeParse(JSON.parse(buf.toString('utf8', 8, 8 + headerLength)));
  if (!parsed.success) throw new Error(`${file}: invalid header: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const h = parsed.data;
  if (h.words.length !== h.count || h.weights.length !== h.count) throw new Error(`${file}: header lists must have ${h.count} entries`);
  if (h.removeComponent.length !== 0 && h.removeComponent.length !== h.dim) throw new Error(`${file}: removeComponent must have ${h.dim} entries`);
  const start = 8 + headerLength;
  if (buf.length !== start + h.count * h.dim * 2) throw new Error(`${file}: expected ${h.count}x${h.dim} float16 values after the header`);
  const vectors = new Float32Array(h.count * h.dim);
  for (let i = 0; i < vectors.length; i++) vectors[i] = f16ToF32(buf.readUInt16LE(start + 2 * i));
  return { header: h, vectors };
}

function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}
