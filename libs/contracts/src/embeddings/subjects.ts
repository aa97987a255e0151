import { RequestBilling } from '../billing/subjects';
import { InlineOrBlob } from '../schemas/inline-or-blob';
import { CallerContext } from '../services';

export const EMBEDDINGS = {
  /** Embeds a batch of texts with an `embedding` model of the catalog (served by the chat service). */
  /** v2: the inputs and vectors are one InlineOrBlob each (v1 had input/inputBlob, vectors/vectorsBlob). */
  CREATE: 'chat.cmd.embed.v2',
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
  /** The inputs, in order, as a UTF-8 JSON array of strings. */
  input: InlineOrBlob;
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
  /** The vectors, row-major, `count x dimensions` little-endian float32. */
  vectors: InlineOrBlob;
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
