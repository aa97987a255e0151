import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Catalog, embeddingConstraintsOf } from '@svc/catalog';
import { EmbeddingBatches } from '../embeddings/embedding-batches';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { checkRerankSize, documentTextsOf, RerankRequest } from './rerank-request.dto';
import { RerankResponse } from './rerank-response';
import { rankByCosine } from './rerank-scoring';

/**
 * `POST /rerank` on an embedding model: the query and the documents embedded in one batch (billed
 * like `POST /embeddings`: their input tokens, settled by the chat service with the model's
 * count), ranked by cosine similarity to the query, best first, `top_n` of them.
 */
@Injectable()
export class RerankPipeline {
  constructor(
    private readonly batches: EmbeddingBatches,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  run(call: RouteCall, request: RerankRequest): Promise<RerankResponse> {
    const model = this.catalog.require(request.model, 'embedding', 'an embedding model (any embedding model reranks)');
    const admission = this.batches.forModel(call, model);
    const documents = documentTextsOf(request);
    checkRerankSize(request.query, documents, model.id, embeddingConstraintsOf(model).maxBatch);
    return admission.run([request.query, ...documents], undefined, (batch) => ({
      id: randomUUID(),
      model: batch.model,
      results: rankByCosine(batch.vectors, batch.count, batch.dimensions, request.top_n).map((r) =>
        request.return_documents ? { ...r, document: { text: documents[r.index] } } : r,
      ),
      usage: { prompt_tokens: batch.promptTokens, total_tokens: batch.promptTokens },
    }));
  }
}
