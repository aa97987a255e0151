import { Inject, Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { AuthenticatedKey, KEYS } from '@svc/contracts';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { AuthenticatedRequest } from '../auth/auth.decorators';
import { ChatPipeline, ChatPipelineRequest } from '../chat/chat.pipeline';
import { chatRequestSchema, toChatParams } from '../chat/chat-request.dto';
import { completionsRequestSchema } from '../completions/completions-request.dto';
import { CompletionsPipeline } from '../completions/completions.pipeline';
import { EmbeddingsPipeline } from '../embeddings/embeddings.pipeline';
import { parseBody } from '../http/parse-body';
import { RouteCall } from '../http/route-call';
import { GATEWAY_LOGGER } from '../logger.token';
import { responsesRequestSchema } from '../responses/responses-request.dto';
import { ResponsesPipeline } from '../responses/responses.pipeline';
import { lineRequestId, lineReservationId } from './batch-ids';
import { refusedLine, succeededLine } from './batch-object';
import { BatchLine, BatchOutputLine, StoredBatch } from './batch.types';

/** A line refused for its rate limit waits for the window and tries again, this many times. */
const RATE_LIMIT_RETRIES = 5;

/**
 * Runs one line of a batch as the live endpoint runs a request, through the same path: its
 * body checked by the route's schema, admission for its worst case with the batch's key (its id,
 * account and limits, kept with the batch; never the secret) in a reservation of its own whose id
 * is derived from the batch and the line's custom_id (a rerun replays it, so nothing is charged
 * twice), the service call, and settlement with the exact counts by that service.
 */
@Injectable()
export class BatchLineRunner {
  constructor(
    private readonly chat: ChatPipeline,
    private readonly completions: CompletionsPipeline,
    private readonly responses: ResponsesPipeline,
    private readonly embeddings: EmbeddingsPipeline,
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  async run(batch: StoredBatch, line: BatchLine): Promise<BatchOutputLine> {
    const requestId = lineRequestId(batch.id, line.index);
    for (let attempt = 0; ; attempt++) {
      try {
        const key = await this.currentKey(batch.key, requestId);
        return succeededLine(requestId, line.customId, requestId, await this.answer({ ...batch, key }, line, requestId));
      } catch (err) {
        if (!(err instanceof DomainError)) this.logger.error({ requestId, batchId: batch.id, err: errorMessage(err) }, 'batch line failed');
        const refusal = err instanceof DomainError ? err : new DomainError(ErrorCode.Internal, 'The request failed.');
        if (refusal.code === ErrorCode.RateLimited && attempt < RATE_LIMIT_RETRIES) {
          await sleep((refusal.retryAfterSeconds ?? 1) * 1000);
          continue;
        }
        return refusedLine(requestId, line.customId, requestId, refusal);
      }
    }
  }

  /**
   * The batch's key as it is now: a key deleted or expired since the batch was created runs no
   * more lines, and a changed consumption limit applies to the lines still to run.
   */
  private async currentKey(key: AuthenticatedKey, requestId: string): Promise<AuthenticatedKey> {
    const gone = new DomainError(ErrorCode.Unauthorized, 'The API key that created this batch was deleted or has expired.');
    if (key.wallet) return key; // a wallet's sign-in stands for its key; it has no key record to re-read
    const view = await this.rpc.send(KEYS.GET, { accountId: key.accountId, id: key.id }, { requestId }).catch((err: unknown) => {
      throw err instanceof DomainError && err.code === ErrorCode.NotFound ? gone : err;
    });
    const { expiresAt, consumptionLimits, limitPeriod, modelPrivacy } = view.data;
    if (expiresAt && Date.parse(expiresAt) <= Date.now()) throw gone;
    return { ...key, expiresAt, consumptionLimits, limitPeriod, modelPrivacy };
  }

  /** The line's answer from its endpoint's own pipeline, as the live route answers, but whole: a batch line has no client to stream to. */
  private async answer(batch: StoredBatch, line: BatchLine, requestId: string): Promise<unknown> {
    const caller = { requestId, accountId: batch.key.accountId, apiKeyId: batch.key.id };
    const request = { apiKey: batch.key, ip: batch.ip, url: batch.endpoint, headers: {} } as unknown as AuthenticatedRequest;
    const call = { caller, request, reply: headlessReply(request) };
    const reservation = { ownReservation: true, reservationId: lineReservationId(batch.id, line.customId) };
    switch (batch.endpoint) {
      case '/v1/chat/completions':
        return this.chatLine(call, line, reservation);
      case '/v1/completions':
        return this.completions.run(call, { ...parseBody(completionsRequestSchema, line.body), stream: false }, reservation);
      case '/v1/responses':
        return this.responses.run(call, { ...parseBody(responsesRequestSchema, line.body), stream: false }, reservation);
      case '/v1/embeddings':
        return this.embeddings.run(call, line.body, reservation);
    }
  }

  private chatLine(call: RouteCall, line: BatchLine, reservation: ChatPipelineRequest['reservation']): Promise<unknown> {
    const input = parseBody(chatRequestSchema, line.body);
    const chat = {
      model: input.model,
      svc_parameters: input.svc_parameters,
      params: (modelId: string) => toChatParams({ ...input, stream: false, stream_options: undefined }, modelId),
      reservation,
    };
    const answer = {
      body: (completion: object, cost: object | undefined) => (cost ? { ...completion, cost } : completion),
      stream: () => {
        throw new DomainError(ErrorCode.Internal, 'a batch line cannot stream');
      },
    };
    return this.chat.run(call, chat, answer);
  }
}

/** The pipeline sets response headers (model, balances, retries) on its reply; a batch line has none to send. */
function headlessReply(request: AuthenticatedRequest): FastifyReply {
  const reply = { request, header: () => reply };
  return reply as unknown as FastifyReply;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
