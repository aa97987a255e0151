import { EmbeddingEngine, EmbedRequest, EmbedResult } from './embedding-engine';
import { shorten } from './openai-embeddings.engine';
import { WordVectorsEngine, WordVectorsEngineOptions } from './word-vectors.engine';

/** The in-process word-vector model behind the EmbeddingEngine interface. */
export class WordVectorsEmbeddingEngine implements EmbeddingEngine {
  readonly kind = 'embedded' as const;
  private readonly engine: WordVectorsEngine;

  constructor(options: WordVectorsEngineOptions) {
    this.engine = new WordVectorsEngine(options);
  }

  get dimensions(): number {
    return this.engine.dimensions;
  }

  ready(): Promise<void> {
    return this.engine.ready();
  }

  countTokens(inputs: string[]): number[] {
    return this.engine.countTokens(inputs);
  }

  async embed(request: EmbedRequest): Promise<EmbedResult> {
    const { embeddings, tokens } = this.engine.embed(request.inputs);
    const dims = request.dimensions;
    return {
      embeddings: dims !== undefined && dims < this.engine.dimensions ? embeddings.map((v) => shorten(v, dims)) : embeddings,
      promptTokens: tokens.reduce((a, b) => a + b, 0),
    };
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
