import { z } from 'zod';
import { DomainError, ErrorCode } from '@svc/errors';

/** The most documents one request may rank (Cohere's and Jina's limit); fewer when the model's batch is smaller. */
export const RERANK_MAX_DOCUMENTS = 1000;
/** The most UTF-8 bytes of the query and the documents together. */
export const RERANK_MAX_BYTES = 4 * 1024 * 1024;

const documentSchema = z.union(
  [z.string().min(1, 'documents cannot be empty strings'), z.looseObject({ text: z.string().min(1, 'document text cannot be empty') })],
  { error: 'each document must be a non-empty string or an object with a non-empty text' },
);

/** `POST /rerank` (the Cohere/Jina shape LiteLLM and LocalAI serve). Undocumented fields pass without validation. */
export const rerankRequestSchema = z.object({
  /** An embedding model (id, trait or compatibility name): any of them ranks. */
  model: z.string().min(1, 'model is required'),
  query: z.string().min(1, 'query cannot be empty'),
  documents: z
    .array(documentSchema)
    .min(1, 'documents must have at least one item')
    .max(RERANK_MAX_DOCUMENTS, `documents must have at most ${RERANK_MAX_DOCUMENTS} items`),
  /** How many of the best documents to answer; all of them when absent (or larger). */
  top_n: z.number().int().min(1, 'top_n must be at least 1').optional(),
  /** Whether each result carries `document: {text}`. */
  return_documents: z.boolean().default(false),
});
export type RerankRequest = z.infer<typeof rerankRequestSchema>;

/** The documents' texts, in order. */
export const documentTextsOf = (request: RerankRequest): string[] => request.documents.map((d) => (typeof d === 'string' ? d : d.text));

/** 400 naming `documents` when the query and documents pass RERANK_MAX_BYTES, or more documents than the model embeds in one batch (less the query). */
export function checkRerankSize(query: string, documents: string[], modelId: string, maxBatch: number): void {
  const maxDocuments = Math.min(RERANK_MAX_DOCUMENTS, maxBatch - 1);
  if (documents.length > maxDocuments)
    throw new DomainError(ErrorCode.Validation, `documents has ${documents.length} items; model ${modelId} ranks at most ${maxDocuments} per request.`, {
      _errors: [],
      documents: { _errors: [`at most ${maxDocuments} items for this model`] },
    });
  let bytes = Buffer.byteLength(query, 'utf8');
  for (const document of documents) bytes += Buffer.byteLength(document, 'utf8');
  if (bytes > RERANK_MAX_BYTES)
    throw new DomainError(ErrorCode.Validation, `query and documents have ${bytes} bytes together; at most ${RERANK_MAX_BYTES} (4 MiB) per request.`, {
      _errors: [],
      documents: { _errors: [`at most ${RERANK_MAX_BYTES} bytes with the query`] },
    });
}
