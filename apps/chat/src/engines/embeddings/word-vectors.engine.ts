import { readSvec, SvecHeader } from './svec-file';

export interface EmbeddingResult {
  /** Unit-length vectors, one per input, in input order. */
  embeddings: Float32Array[];
  /** Words counted as tokens (known or not), per input: the usage figure for billing. */
  tokens: number[];
  /** Inputs with no known word get a zero vector. */
  emptyInputs: number[];
}

export interface WordVectorsEngineOptions {
  modelPath: string;
  /** Most inputs in one call; more is a caller error. */
  maxBatch?: number;
}

/**
 * Sentence embeddings from word vectors: the SIF-weighted mean of the known words' vectors, minus
 * the model's common component, scaled to unit length. Pure TypeScript and synchronous (about a
 * microsecond per word), so it needs no worker, queue or thread settings.
 */
export class WordVectorsEngine {
  private header?: SvecHeader;
  private vectors?: Float32Array;
  private index?: Map<string, number>;
  private pattern?: RegExp;

  constructor(private readonly options: WordVectorsEngineOptions) {}

  get dimensions(): number {
    return this.loaded().header.dim;
  }

  async ready(): Promise<void> {
    if (this.header) return;
    const { header, vectors } = readSvec(this.options.modelPath);
    this.index = new Map(header.words.map((w, i) => [w, i]));
    this.pattern = new RegExp(header.tokenPattern, 'g');
    this.vectors = vectors;
    this.header = header;
  }

  embed(inputs: string[]): EmbeddingResult {
    const { header, vectors, index, pattern } = this.loaded();
    const max = this.options.maxBatch ?? 2048;
    if (inputs.length > max) throw new RangeError(`at most ${max} inputs per call`);
    const dim = header.dim;
    const pc = header.removeComponent;
    const result: EmbeddingResult = { embeddings: [], tokens: [], emptyInputs: [] };
    inputs.forEach((input, k) => {
      const text = header.lowercase ? input.toLowerCase() : input;
      const words = text.match(pattern) ?? [];
      const v = new Float32Array(dim);
      let known = 0;
      for (const w of words) {
        const id = index.get(w);
        if (id === undefined) continue;
        known++;
        const weight = header.weights[id];
        for (let d = 0; d < dim; d++) v[d] += weight * vectors[id * dim + d];
      }
      normalise(v);
      if (pc.length === dim && known > 0) {
        let dot = 0;
        for (let d = 0; d < dim; d++) dot += v[d] * pc[d];
        for (let d = 0; d < dim; d++) v[d] -= dot * pc[d];
        normalise(v);
      }
      if (known === 0) result.emptyInputs.push(k);
      result.embeddings.push(v);
      result.tokens.push(words.length);
    });
    return result;
  }

  /** Tokens per input as `embed` counts them (words, known or not), without embedding. */
  countTokens(inputs: string[]): number[] {
    const { header, pattern } = this.loaded();
    return inputs.map((input) => ((header.lowercase ? input.toLowerCase() : input).match(pattern) ?? []).length);
  }

  async close(): Promise<void> {
    this.vectors = undefined;
    this.header = undefined;
  }

  private loaded(): { header: SvecHeader; vectors: Float32Array; index: Map<string, number>; pattern: RegExp } {
    if (!this.header || !this.vectors || !this.index || !this.pattern) throw new Error('WordVectorsEngine: call ready() first');
    return { header: this.header, vectors: this.vectors, index: this.index, pattern: this.pattern };
  }
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

function normalise(v: Float32Array): void {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
}
