import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { FastifyInstance, FastifyReply } from 'fastify';
import { BILLING } from '@svc/contracts';
import { HEADER } from '@svc/headers';
import { Logger } from '@svc/logging';
import { QUICK_CALL_IDLE_MS, RpcClient } from '@svc/messaging';
import { formatAmount } from '@svc/pricing';
import { GATEWAY_LOGGER } from '../logger.token';
import { AuthenticatedRequest } from './auth.decorators';

const BALANCE_TIMEOUT_MS = 2_000;

/**
 * `X-Balance-Remaining` on every response to a wallet (Sign-In-With-X) caller. Admitted requests
 * already carry it from their hold (billing/balance-headers.ts, also on streams); any other answer
 * (a 4xx before admission, a 402, a route that holds nothing) asks billing for the balance here.
 */
@Injectable()
export class WalletBalanceHeader implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', async (request, reply, payload) => {
      await this.add(request as AuthenticatedRequest, reply);
      return payload;
    });
  }

  async add(request: AuthenticatedRequest, reply: FastifyReply): Promise<void> {
    const key = request.apiKey;
    if (!key?.wallet || reply.hasHeader(HEADER.balanceRemaining)) return;
    const usd = reply.getHeader(HEADER.balanceUsd);
    if (typeof usd === 'string') {
      reply.header(HEADER.balanceRemaining, usd);
      return;
    }
    try {
      const balance = await this.rpc.send(
        BILLING.BALANCE,
        { accountId: key.accountId },
        { requestId: request.id, timeoutMs: BALANCE_TIMEOUT_MS, idleTimeoutMs: QUICK_CALL_IDLE_MS },
      );
      reply.header(HEADER.balanceRemaining, formatAmount(BigInt(balance.usdNano)));
    } catch (err) {
      // The answer itself must still go out; only the header is missing.
      this.logger.warn({ requestId: request.id, err: (err as Error).message }, 'X-Balance-Remaining left out: billing did not answer');
    }
  }
}
