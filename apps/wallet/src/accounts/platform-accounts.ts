import { Injectable } from '@nestjs/common';
import { KEYS } from '@svc/contracts';
import { QUICK_CALL_IDLE_MS, RpcClient } from '@svc/messaging';

/**
 * Creates the platform account a wallet pays from, in the keys service (which owns accounts).
 * Billing needs no call: its account row is created by the first credit or hold, and its
 * balance of an account it has not seen yet is zero (docs/wallet.md, "Accounts").
 */
@Injectable()
export class PlatformAccounts {
  constructor(private readonly rpc: RpcClient) {}

  async create(name: string, requestId?: string): Promise<string> {
    const { accountId } = await this.rpc.send(KEYS.CREATE_ACCOUNT, { name }, { requestId, timeoutMs: 5_000, idleTimeoutMs: QUICK_CALL_IDLE_MS });
    return accountId;
  }
}
