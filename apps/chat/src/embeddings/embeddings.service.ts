import { Inject, Injectable } from '@nestjs/common';
import { Catalog, embeddingConstraintsOf, ModelDefinition } from '@svc/catalog';
import { LazyBlobStore, packInlineOrBlob, unpackInlineOrBlob } from '@svc/blob-store';
import { CountEmbeddingTokensReply, CountEmbeddingTokensRequest, CreateEmbeddingsReply, CreateEmbeddingsRequest, embeddingInputsSchema } from '@svc/contracts';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { CATALOG, CHAT_LOGGER } from '../chat/tokens';
import { EmbeddingEngineRegistry } from '../engines/embeddings/embedding-engine-registry';
import { EMBEDDING_BLOBS, PAYLOAD_TTL_MS } from './embedding-payloads';
import { packVectors } from './vector-packing';

/**
 * Runs `POST /embeddings` batches: checks the model's limits (per-input tokens exactly, for engines
 * that can count them), embeds, settles the gateway's reservation with the model's token count,
 * and returns the vectors packed as float32 (inline, or parked in Redis when large).
 * Inputs and vectors are never logged; only counts.
 */
@Injectable()
export class EmbeddingsService {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    private readonly engines: EmbeddingEngineRegistry,
    private readonly billing: BillingSettler,
    @Inject(EMBEDDING_BLOBS) private readonly blobs: LazyBlobStore,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
  ) {}

  async create(request: CreateEmbeddingsRequest): Promise<CreateEmbeddingsReply> {
    const { caller, billing } = request;
    const started = Date.now();
    try {
      return await this.billing.around(billing, caller.requestId, async (charge) => {
        const model = this.model(request.model);
        const inputs = await this.inputs(request);
        const dimensions = this.checkLimits(model, inputs, request.dimensions);
        const engine = this.engines.get(model);
        const counts = engine.countTokens?.(inputs);
        const limit = embeddingConstraintsOf(model).maxInputTokens;
        const tooLong = counts?.findIndex((n) => n > limit) ?? -1;
        if (counts && tooLong >= 0) {
          throw new DomainError(ErrorCode.Validation, `Input ${tooLong} has ${counts[tooLong]} tokens; model ${model.id} accepts at most ${limit} per input.`, {
            _errors: [],
            input: { _errors: [`input ${tooLong} exceeds ${limit} tokens`] },
          });
        }
        const result = await engine.embed({ inputs, dimensions });
        const promptTokens = counts ? counts.reduce((a, b) => a + b, 0) : result.promptTokens;
        charge({ kind: 'embedding', inputTokens: promptTokens });
        const vectors = await packInlineOrBlob(this.blobs, packVectors(result.embeddings), { ttlMs: PAYLOAD_TTL_MS, what: 'the embeddings' });
        const reply: CreateEmbeddingsReply = { model: model.id, count: inputs.length, dimensions: result.embeddings[0]?.length ?? 0, vectors, promptTokens };
        this.logger.info(
          { requestId: caller.requestId, model: model.id, inputs: inputs.length, promptTokens, dimensions: reply.dimensions, ms: Date.now() - started },
          'embeddings',
        );
        return reply;
      });
    } catch (err) {
      if (err instanceof DomainError) throw err;
      this.logger.error({ requestId: caller.requestId, model: request.model, err: errorMessage(err) }, 'embeddings failed');
      throw new DomainError(ErrorCode.Internal, 'Embedding failed.');
    }
  }

  /** The batch's input tokens as `create` will charge them, without embedding; null where only the engine's answer tells. */
  countTokens({ model: id, input }: CountEmbeddingTokensRequest): CountEmbeddingTokensReply {
    const counts = this.engines.get(this.model(id)).countTokens?.(input);
    return { inputTokens: counts ? counts.reduce((a, b) => a + b, 0) : null };
  }

  private model(id: string): ModelDefinition {
    return this.catalog.require(id, 'embedding');
  }

  /** The inputs as the gateway packed them (a JSON array of strings), checked as the message schema would have. */
  private async inputs(request: CreateEmbeddingsRequest): Promise<string[]> {
    const bytes = await unpackInlineOrBlob(this.blobs, request.input, {
      missing: () => new DomainError(ErrorCode.ServiceUnavailable, 'The request input expired before it could be embedded; retry.'),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new DomainError(ErrorCode.Validation, 'input must be an array of strings.');
    }
    const inputs = embeddingInputsSchema.safeParse(parsed);
    if (!inputs.success) throw DomainError.validation(inputs.error.issues.map((i) => ({ ...i, path: ['input', ...i.path] })));
    return inputs.data;
  }

  /** The gateway checks these too; a service never trusts that alone. Returns the dimensions to produce. */
  private checkLimits(model: ModelDefinition, inputs: string[], dimensions: number | undefined): number | undefined {
    const c = embeddingConstraintsOf(model);
    if (inputs.length === 0 || inputs.length > c.maxBatch)
      throw new DomainError(ErrorCode.Validation, `input must have 1 to ${c.maxBatch} items for model ${model.id}.`);
    if (dimensions === undefined || dimensions === c.dimensions) return undefined;
    if (c.minDimensions === undefined || c.dimensions === undefined || dimensions < c.minDimensions || dimensions > c.dimensions) {
      throw new DomainError(ErrorCode.Validation, `dimensions ${dimensions} is not available for model ${model.id}.`);
    }
    return dimensions;
  }
}
