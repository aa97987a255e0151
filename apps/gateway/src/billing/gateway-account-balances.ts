import { Injectable } from '@nestjs/common';
import { BILLING, CallerContext } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { toNumber } from '@svc/pricing';
import { AccountBalances, Balances } from '../rate-limit/account-balances';

/** Balances for GET /api_keys/rate_limits; left out (unknown) when billing does not answer. */
@Injectable()
export class GatewayAccountBalances implements AccountBalances {
  constructor(private readonly rpc: RpcClient) {}

  async balances(caller: CallerContext): Promise<Balances> {
    try {
      const reply = await this.rpc.send(BILLING.BALANCE, { accountId: caller.accountId }, { requestId: caller.requestId, timeoutMs: 2_000 });
      return { USD: toNumber(BigInt(reply.usdNano)), DIEM: toNumber(BigInt(reply.diemNano)) };
    } catch {
      return {};
    }
  }
}
