import { Injectable } from '@nestjs/common';
import { AuthenticatedKey, WALLET_AUTH } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { QUICK_CALL_IDLE_MS, RpcClient } from '@svc/messaging';
import { siwxTooLong } from './siwx-header';

const SIGN_IN_TIMEOUT_MS = 5_000;

/**
 * Signs a wallet in through the wallet service (which verifies the signed message and spends its
 * nonce) and gives the request the key a wallet acts with: an INFERENCE key of the wallet's account,
 * without consumption limits, under the `paid` tier's rate limits. Its id is the account id, so
 * holds, settlement, usage lines and per-key limits work as for any key (docs/wallet.md).
 * Never retried: a sign-in whose answer was lost has spent its nonce, and a retry would be a replay.
 */
@Injectable()
export class SiwxAuthenticator {
  constructor(private readonly rpc: RpcClient) {}

  async authenticate(header: string, requestId: string): Promise<AuthenticatedKey> {
    if (siwxTooLong(header)) throw new DomainError(ErrorCode.Unauthorized, 'Invalid SIGN-IN-WITH-X header: too long.');
    const wallet = await this.rpc.send(WALLET_AUTH.SIGN_IN, { header }, { requestId, timeoutMs: SIGN_IN_TIMEOUT_MS, idleTimeoutMs: QUICK_CALL_IDLE_MS });
    return {
      id: wallet.accountId,
      accountId: wallet.accountId,
      apiKeyType: 'INFERENCE',
      expiresAt: null,
      consumptionLimits: { usd: null, diem: null },
      limitPeriod: 'EPOCH',
      modelPrivacy: 'ALL',
      wallet: { address: wallet.address, network: wallet.network },
    };
  }
}
