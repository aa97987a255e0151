import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';

export const EMBEDDINGS = {
  /** Embeds a batch of texts with an `embedding` model of the catalog (served by the chat service). */
  CREATE: 'chat.cmd.embed.v1',
  /** The exact input tokens of a batch, asked only when its byte bound does not fit the credit left (docs/billing.md). */
  COUNT_TOKENS: 'chat.query.embedding-tokens.v1',
} as const;

/**
 * A reference to bytes parked in Redis (`@svc/blob-store`), for payloads too large for one NATS
 * message. Mirrors `BlobRef` of `@svc/blob-store` (contracts import nothing).
 */
export interface EmbeddingBlobRef {
  blobId: string;
  bytes: number;
}

export interface CreateEmbeddingsRequest {
  caller: CallerContext;
  /** The catalog id the gateway resolved. */
  model: string;
  /** The inputs, in order; absent when they travel in `inputBlob` (UTF-8 JSON array of strings). */
  input?: string[];
  inputBlob?: EmbeddingBlobRef;
  /** Requested vector size, already checked against the model's constraints by the gateway. */
  dimensions?: number;
  /** Present when the gateway reserved credit: the chat service settles it with the exact token count. */
  billing?: RequestBilling;
}

export interface CreateEmbeddingsReply {
  /** The catalog id of the model that ran. */
  model: string;
  count: number;
  dimensions: number;
  /**
   * The vectors, row-major, `count x dimensions` little-endian float32, base64. Absent when they
   * travel in `vectorsBlob` (the same bytes, raw).
   */
  vectors?: string;
  vectorsBlob?: EmbeddingBlobRef;
  /** Input tokens as the model counted them: the billed quantity. */
  promptTokens: number;
}

export interface CountEmbeddingTokensRequest {
  caller: CallerContext;
  model: string;
  input: string[];
}

export interface CountEmbeddingTokensReply {
  /** The input tokens the model will be charged for, or null when its engine cannot count before embedding (upstream). */
  inputTokens: number | null;
}

export interface EmbeddingsRpc {
  [EMBEDDINGS.CREATE]: { req: CreateEmbeddingsRequest; res: CreateEmbeddingsReply };
  [EMBEDDINGS.COUNT_TOKENS]: { req: CountEmbeddingTokensRequest; res: CountEmbeddingTokensReply };
}
