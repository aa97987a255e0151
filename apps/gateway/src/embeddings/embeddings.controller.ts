import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Catalog, embeddingConstraintsOf, ModelDefinition } from '@svc/catalog';
import { CallerContext } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { CATALOG } from '../models/models.tokens';
import { EmbeddingBatches } from './embedding-batches';
import { embeddingsRequestSchema, EmbeddingsRequest, inputsOf, rejectTokenArrays } from './embeddings-request.dto';
import { EmbeddingsResponse, toEmbeddingData } from './embeddings-response';

@Controller('embeddings')
export class EmbeddingsController {
  constructor(
    private readonly batches: EmbeddingBatches,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  @Post()
  @HttpCode(200)
  async create(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EmbeddingsResponse> {
    rejectTokenArrays(body);
    const input = parseBody(embeddingsRequestSchema, body);
    const model = this.catalog.resolve(input.model, 'embedding');
    if (!model)
      throw new DomainError(
        ErrorCode.ModelNotFound,
        `Model "${input.model}" does not exist or is not an embedding model. See GET /api/v1/models?type=embedding.`,
      );
    const admission = this.batches.forModel({ caller, request, reply }, model);
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
