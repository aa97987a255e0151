import { Inject, Injectable } from '@nestjs/common';
import { Catalog, embeddingConstraintsOf, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';
import { AdmissionRequest } from '../admission/admission.types';
import { parseBody } from '../http/parse-body';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { EmbeddingBatches } from './embedding-batches';
import { embeddingsRequestSchema, EmbeddingsRequest, inputsOf, rejectTokenArrays } from './embeddings-request.dto';
import { EmbeddingsResponse, toEmbeddingData } from './embeddings-response';

/**
 * `POST /embeddings` from body to answer: validation, the model and its limits, the admitted
 * embedding path. The route's controller calls it, and so does a batch line (docs/batches.md),
 * with a reservation of its own.
 */
@Injectable()
export class EmbeddingsPipeline {
  constructor(
    private readonly batches: EmbeddingBatches,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  async run(call: RouteCall, body: unknown, reservation?: Pick<AdmissionRequest, 'ownReservation' | 'reservationId'>): Promise<EmbeddingsResponse> {
    rejectTokenArrays(body);
    const input = parseBody(embeddingsRequestSchema, body);
    const model = this.catalog.require(input.model, 'embedding');
    const admission = this.batches.forModel(call, model, reservation);
    const inputs = inputsOf(input);
    const dimensions = checkLimits(model, inputs, input);
    return admission.run(inputs, dimensions, (batch) => ({
      object: 'list' as const,
      data: toEmbeddingData(batch.vectors, batch.count, batch.dimensions, input.encoding_format),
      model: batch.model,
      usage: { prompt_tokens: batch.promptTokens, total_tokens: batch.promptTokens },
    }));
  }
}

/** The model's batch and dimension limits (400 with the field named); returns `dimensions` to request. */
function checkLimits(model: ModelDefinition, inputs: string[], request: EmbeddingsRequest): number | undefined {
  const c = embeddingConstraintsOf(model);
  if (inputs.length > c.maxBatch) {
    throw new DomainError(ErrorCode.Validation, `input has ${inputs.length} items; model ${model.id} accepts at most ${c.maxBatch} per request.`, {
      _errors: [],
      input: { _errors: [`at most ${c.maxBatch} items for this model`] },
    });
  }
  const asked = request.dimensions;
  if (asked === undefined || asked === c.dimensions) return undefined;
  const ok = c.minDimensions !== undefined && c.dimensions !== undefined && asked >= c.minDimensions && asked <= c.dimensions;
  if (!ok) {
    const allowed =
      c.minDimensions !== undefined && c.dimensions !== undefined
        ? `${c.minDimensions} to ${c.dimensions}`
        : c.dimensions !== undefined
          ? `only ${c.dimensions}`
          : 'not settable';
    throw new DomainError(ErrorCode.Validation, `dimensions ${asked} is not supported by model ${model.id} (allowed: ${allowed}).`, {
      _errors: [],
      dimensions: { _errors: [`allowed: ${allowed}`] },
    });
  }
  return asked;
}
