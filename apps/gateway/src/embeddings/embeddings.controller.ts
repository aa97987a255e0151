import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import Redis from 'ioredis';
import { BlobStore } from '@svc/blob-store';
import { Catalog, embeddingConstraintsOf, ModelDefinition } from '@svc/catalog';
import { BillableUsage, CallerContext, CreateEmbeddingsReply, CreateEmbeddingsRequest, EMBEDDINGS } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { AdmissionService } from '../admission/admission.service';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { CATALOG } from '../models/models.tokens';
import { REDIS } from '../redis/redis.module';
import { embeddingsRequestSchema, EmbeddingsRequest, inputsOf, rejectTokenArrays } from './embeddings-request.dto';
import { EmbeddingsResponse, toEmbeddingData } from './embeddings-response';
import { estimateEmbeddingTokens } from './embeddings-usage';

/** Inputs larger than this (as JSON) travel to the chat service through Redis, not in the NATS message (1 MB cap). */
const INLINE_INPUT_LIMIT = 256 * 1024;
const INPUT_TTL_MS = 60_000;
/** Counting is a tokenizer pass: a service that cannot answer in this long leaves the byte bound's refusal. */
const COUNT_TIMEOUT_MS = 2_000;

@Controller('embeddings')
export class EmbeddingsController {
  private readonly blobs: BlobStore;

  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS) redis: Redis,
  ) {
    this.blobs = new BlobStore(redis);
  }

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
    const admission = this.admission.forModel({ caller, request, reply }, model);
    const inputs = inputsOf(input);
    const dimensions = checkLimits(model, inputs, input);
    // At the margin (the byte bound does not fit the credit left), the engine counts the batch exactly.
    const exactWorstCase = async (): Promise<BillableUsage | null> => {
      if (Buffer.byteLength(JSON.stringify(inputs)) > INLINE_INPUT_LIMIT) return null;
      const { inputTokens } = await this.rpc.send(
        EMBEDDINGS.COUNT_TOKENS,
        { caller, model: model.id, input: inputs },
        { requestId: caller.requestId, timeoutMs: COUNT_TIMEOUT_MS },
      );
      return inputTokens === null ? null : { kind: 'embedding', inputTokens };
    };
    const worstCase: BillableUsage = { kind: 'embedding', inputTokens: estimateEmbeddingTokens(inputs, embeddingConstraintsOf(model)) };
    return admission.run(
      worstCase,
      async ({ billing }) => {
        const call: CreateEmbeddingsRequest = { caller, model: model.id, dimensions, billing };
        const json = JSON.stringify(inputs);
        if (Buffer.byteLength(json) <= INLINE_INPUT_LIMIT) call.input = inputs;
        else call.inputBlob = await this.blobs.put(Buffer.from(json), INPUT_TTL_MS);
        const result = await this.rpc.send(EMBEDDINGS.CREATE, call, {
          requestId: caller.requestId,
          timeoutMs: this.config.INFERENCE_TIMEOUT_MS,
          idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS,
          resendUntaken: true,
        });
        const packed = await this.vectorsOf(result);
        return {
          result: {
            object: 'list' as const,
            data: toEmbeddingData(packed, result.count, result.dimensions, input.encoding_format),
            model: result.model,
            usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
          },
          usage: { promptTokens: result.promptTokens, completionTokens: 0 },
        };
      },
      { exactWorstCase },
    );
  }

  private async vectorsOf(result: CreateEmbeddingsReply): Promise<Buffer> {
    if (result.vectors !== undefined) return Buffer.from(result.vectors, 'base64');
    const bytes = result.vectorsBlob ? await this.blobs.take(result.vectorsBlob.blobId) : null;
    if (!bytes) throw new DomainError(ErrorCode.ServiceUnavailable, 'The embeddings expired before they could be returned; retry.');
    return bytes;
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
