import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { BlobStore, packInlineOrBlob, unpackInlineOrBlob } from '@svc/blob-store';
import { embeddingConstraintsOf, ModelDefinition } from '@svc/catalog';
import { BillableUsage, EMBEDDINGS, INLINE_PAYLOAD_MAX_BYTES } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, ModelAdmission } from '../admission/admission.service';
import { AdmissionRequest } from '../admission/admission.types';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { REDIS } from '../redis/redis.module';
import { estimateEmbeddingTokens } from './embeddings-usage';

const INPUT_TTL_MS = 60_000;
/** Counting is a tokenizer pass: a service that cannot answer in this long leaves the byte bound's refusal. */
const COUNT_TIMEOUT_MS = 2_000;

/** A batch the chat service embedded: `count x dimensions` little-endian float32 vectors, row-major, and the billed tokens. */
export interface EmbeddedBatch {
  /** The catalog id of the model that ran. */
  model: string;
  count: number;
  dimensions: number;
  vectors: Buffer;
  promptTokens: number;
}

/** One request's admission for an embedding model (EmbeddingBatches.forModel). */
export interface EmbeddingAdmission {
  /** Embeds `inputs` under the admission and answers `answer(batch)`; the chat service settles with the exact token count. */
  run<T>(inputs: string[], dimensions: number | undefined, answer: (batch: EmbeddedBatch) => T): Promise<T>;
}

/**
 * The one path by which a gateway route embeds texts (`POST /embeddings`, `POST /rerank`):
 * admission with the worst case `{kind: 'embedding', inputTokens}` bounded by the inputs' bytes
 * (counted exactly by the engine at the margin), the call to the chat service (large inputs and
 * vectors through Redis), and settlement by that service with the model's count.
 */
@Injectable()
export class EmbeddingBatches {
  private readonly blobs: BlobStore;

  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS) redis: Redis,
  ) {
    this.blobs = new BlobStore(redis);
  }

  /** The model's headers go on the reply now, so the route's own 4xx from here on carry them too. */
  forModel(call: RouteCall, model: ModelDefinition, reservation?: Pick<AdmissionRequest, 'ownReservation' | 'reservationId'>): EmbeddingAdmission {
    const admission = this.admission.forModel(call, model);
    return { run: (inputs, dimensions, answer) => this.run(admission, call, model, inputs, dimensions, answer, reservation) };
  }

  private run<T>(
    admission: ModelAdmission,
    { caller }: RouteCall,
    model: ModelDefinition,
    inputs: string[],
    dimensions: number | undefined,
    answer: (batch: EmbeddedBatch) => T,
    reservation?: Pick<AdmissionRequest, 'ownReservation' | 'reservationId'>,
  ): Promise<T> {
    // At the margin (the byte bound does not fit the credit left), the engine counts the batch exactly.
    const exactWorstCase = async (): Promise<BillableUsage | null> => {
      // Counting sends the inputs inline: a batch that would not fit is left to the byte bound.
      if (Buffer.byteLength(JSON.stringify(inputs)) > INLINE_PAYLOAD_MAX_BYTES) return null;
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
        const input = await packInlineOrBlob(this.blobs, Buffer.from(JSON.stringify(inputs)), { ttlMs: INPUT_TTL_MS, what: 'the input' });
        const result = await this.rpc.send(
          EMBEDDINGS.CREATE,
          { caller, model: model.id, input, dimensions, billing },
          {
            requestId: caller.requestId,
            timeoutMs: this.config.INFERENCE_TIMEOUT_MS,
            idleTimeoutMs: this.config.STREAM_IDLE_TIMEOUT_MS,
            resendUntaken: true,
          },
        );
        const vectors = await unpackInlineOrBlob(this.blobs, result.vectors, {
          missing: () => new DomainError(ErrorCode.ServiceUnavailable, 'The embeddings expired before they could be returned; retry.'),
        });
        const batch = { model: result.model, count: result.count, dimensions: result.dimensions, vectors, promptTokens: result.promptTokens };
        return { result: answer(batch), usage: { promptTokens: result.promptTokens, completionTokens: 0 } };
      },
      { exactWorstCase, ...reservation },
    );
  }
}
