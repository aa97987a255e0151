/** One embedding call, engine-agnostic. */
export interface EmbedRequest {
  inputs: string[];
  /** Shorter vectors than the model's native size, when the catalog allows it. */
  dimensions?: number;
  signal?: AbortSignal;
}

export interface EmbedResult {
  /** One vector per input, in input order, all of the same length. */
  embeddings: Float32Array[];
  /** Input tokens as the model counts them (the billed quantity). */
  promptTokens: number;
}

/** An embedding model: embedded (in process) or an upstream OpenAI-compatible server. */
export interface EmbeddingEngine {
  readonly kind: 'embedded' | 'upstream';
  ready(): Promise<void>;
  /**
   * Tokens per input, counted before any work, for engines that can (the per-input limit is then
   * checked exactly); undefined for upstream servers, which enforce their own limit.
   */
  countTokens?(inputs: string[]): number[];
  embed(request: EmbedRequest): Promise<EmbedResult>;
  close(): Promise<void>;
}
