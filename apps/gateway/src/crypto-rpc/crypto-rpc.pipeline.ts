import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { AugmentTool } from '@svc/catalog';
import { CallerContext, CRYPTO_RPC, CryptoRpcNetworksReply, CryptoRpcQuoteReply, JsonRpcBody } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Logger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { LimitOverride } from '../admission/admission.types';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { GATEWAY_LOGGER } from '../logger.token';
import { REDIS } from '../redis/redis.module';
import { CreditReservation, CreditWindow } from './credit-window';
import { IdempotencyStore, StoredAnswer } from './idempotency.store';

/** What admission prices and limits: one entry for every network, billed per credit, under the `crypto-rpc` rate-limit class (100 a minute). */
const rpcModel = (perCredit: CryptoRpcQuoteReply['perCredit']): AugmentTool & LimitOverride => ({
  id: 'svc-crypto-rpc',
  name: 'Crypto JSON-RPC',
  type: 'augment',
  rateLimitTier: 'XS',
  pricing: { per_credit: perCredit },
  limitClass: 'crypto-rpc',
});

/**
 * The blockchain JSON-RPC proxy, served by the wallet service (docs/wallet.md, "JSON-RPC proxy").
 * A body is quoted (every item at its method's full credits), admitted like inference (a hold of
 * credits x price), relayed, and charged by the wallet service for what the node answered.
 */
@Injectable()
export class CryptoRpcPipeline {
  private readonly idempotency: IdempotencyStore;
  private readonly credits: CreditWindow;

  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Inject(REDIS) redis: Redis,
  ) {
    this.idempotency = new IdempotencyStore(redis, config.REDIS_KEY_PREFIX, config.INFERENCE_TIMEOUT_MS + 30_000);
    this.credits = new CreditWindow(redis, config.REDIS_KEY_PREFIX, config.CRYPTO_RPC_CREDITS_PER_DAY);
  }

  networks(requestId: string): Promise<CryptoRpcNetworksReply> {
    return this.rpc.send(CRYPTO_RPC.NETWORKS, { requestId }, { requestId });
  }

  /** `key`: the request's Idempotency-Key, when it sent one (a replay answers what the first call answered). */
  async run(call: RouteCall, slug: string, rpcBody: JsonRpcBody, key: string | undefined): Promise<unknown> {
    const { caller, reply } = call;
    if (key === undefined) return (await this.relay(slug, rpcBody, call)).body;

    const begun = await this.idempotency.begin(caller.accountId, key, IdempotencyStore.fingerprint(slug, rpcBody)).catch((err: unknown) => {
      if (err instanceof DomainError) throw err;
      this.storeFailed(caller, 'claim', err);
      throw new DomainError(ErrorCode.ServiceUnavailable, 'The Idempotency-Key store is unavailable; retry, or send the request without the key.');
    });
    if (begun.kind === 'replay') {
      reply.status(begun.answer.status).headers({ ...begun.answer.headers, [HEADER.idempotentReplayed]: 'true' });
      return begun.answer.body;
    }
    let answer: StoredAnswer;
    try {
      answer = await this.relay(slug, rpcBody, call);
    } catch (err) {
      await begun.release().catch((cause: unknown) => this.storeFailed(caller, 'release', cause));
      throw err;
    }
    // Charged already: the answer goes out even if it cannot be kept (a retry then gets a 409 until the claim expires).
    await begun.store(answer).catch((cause: unknown) => this.storeFailed(caller, 'store', cause));
    return answer.body;
  }

  private storeFailed(caller: CallerContext, step: 'claim' | 'store' | 'release', err: unknown): void {
    this.logger.warn({ requestId: caller.requestId, step, err: (err as Error).message }, 'Idempotency-Key store unavailable');
  }

  /** The 24-hour credit cap's reservation (429 over it); without Redis the cap is not enforced, as the rate limiter falls back. */
  private async reserveCredits(caller: CallerContext, credits: number): Promise<CreditReservation> {
    try {
      return await this.credits.reserve(caller.accountId, credits);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      this.creditsFailed(caller, 'reserve', err);
      return { settle: async () => undefined, release: async () => undefined };
    }
  }

  private creditsFailed(caller: CallerContext, step: 'reserve' | 'settle', err: unknown): void {
    this.logger.warn({ requestId: caller.requestId, step, err: (err as Error).message }, 'JSON-RPC credit cap store unavailable');
  }

  /** Quote, the credit cap and admission (429/402 before any node is called), the wallet service's relay; the billing headers on the reply. */
  private async relay(network: string, body: JsonRpcBody, { caller, request, reply }: RouteCall): Promise<StoredAnswer> {
    const { requestId } = caller;
    const batch = Array.isArray(body);
    const methods = (batch ? body : [body]).map((item) => item.method);
    const quote = await this.rpc.send(CRYPTO_RPC.QUOTE, { requestId, network, methods, batch }, { requestId });
    const admission = {
      requestId,
      key: request.apiKey!,
      model: rpcModel(quote.perCredit),
      worstCase: { kind: 'rpc', credits: quote.credits } as const,
      ip: request.ip,
    };
    const reservation = await this.reserveCredits(caller, quote.credits);
    const result = await this.admission
      .run(admission, reply, async ({ billing }) => ({
        result: await this.rpc.send(CRYPTO_RPC.CALL, { caller, billing, network, body }, { requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS }),
        usage: NO_TOKENS,
      }))
      .catch(async (err: unknown) => {
        // refused or failed: nothing was charged, so nothing counts against the cap
        await reservation.release().catch((cause: unknown) => this.creditsFailed(caller, 'settle', cause));
        throw err;
      });
    await reservation.settle(result.credits).catch((cause: unknown) => this.creditsFailed(caller, 'settle', cause));
    const headers = { [HEADER.rpcCredits]: String(result.credits), [HEADER.rpcCostUsd]: result.costUsd };
    reply.headers(headers);
    return { status: 200, body: result.body, headers };
  }
}
