/** The `POST /rerank` answer: Cohere's and Jina's `results`, with usage as `POST /embeddings` counts it. */
export interface RerankResponse {
  id: string;
  /** The catalog id of the embedding model that ranked. */
  model: string;
  results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
  /** Input tokens of the query and the documents: the billed quantity. */
  usage: { prompt_tokens: number; total_tokens: number };
}
