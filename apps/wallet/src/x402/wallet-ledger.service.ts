import { Inject, Injectable } from '@nestjs/common';
import { BILLING, X402BalanceReply, X402TransactionsReply, X402TransactionsRequest, X402WalletRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { toNumber } from '@svc/pricing';
import { WALLET_ACCOUNTS, WalletAccount, WalletAccounts } from '../accounts/wallet-accounts';
import { X402BillingClient } from './x402-billing.client';
import { MIN_TOP_UP_USD, SUGGESTED_TOP_UP_USD } from './x402-networks';
import { parseWalletAddress } from './wallet-address';

/** A wallet's balance and transactions, read back from billing. */
@Injectable()
export class WalletLedgerService {
  constructor(
    @Inject(WALLET_ACCOUNTS) private readonly accounts: WalletAccounts,
    private readonly billing: X402BillingClient,
    private readonly rpc: RpcClient,
  ) {}

  async balance(request: X402WalletRequest): Promise<X402BalanceReply> {
    const { address, account } = await this.walletOf(request);
    const balance = account ? await this.rpc.send(BILLING.BALANCE, { accountId: account.accountId }, { requestId: request.requestId }) : null;
    return {
      walletAddress: address,
      balanceUsd: balance ? toNumber(BigInt(balance.usdNano)) : 0,
      canConsume: balance?.canConsume ?? false,
      minimumTopUpUsd: MIN_TOP_UP_USD,
      suggestedTopUpUsd: SUGGESTED_TOP_UP_USD,
    };
  }

  async transactions(request: X402TransactionsRequest): Promise<X402TransactionsReply> {
    const { address, account } = await this.walletOf(request);
    const pagination = { limit: request.limit, offset: request.offset };
    if (!account) return { walletAddress: address, currentBalance: 0, transactions: [], pagination: { ...pagination, hasMore: false } };
    const page = await this.billing.history({ accountId: account.accountId, ...pagination }, request.requestId);
    return {
      walletAddress: address,
      currentBalance: toNumber(BigInt(page.balanceNano)),
      transactions: page.entries.map((e) => ({
        id: e.id,
        amount: toNumber(BigInt(e.amountNano)),
        balanceAfter: toNumber(BigInt(e.balanceAfterNano)),
        type: e.kind,
        createdAt: e.createdAt,
        requestId: e.requestId,
        modelId: e.modelId,
      })),
      pagination: { ...pagination, hasMore: page.hasMore },
    };
  }

  /** The wallet's account; a caller limited to an account (an ADMIN key) sees only a wallet of that account. */
  private async walletOf(request: X402WalletRequest): Promise<{ address: string; account: WalletAccount | null }> {
    const { address, family } = parseWalletAddress(request.walletAddress);
    const account = await this.accounts.find(address, family);
    if (request.accountId !== undefined && account?.accountId !== request.accountId) {
      throw new DomainError(ErrorCode.Forbidden, 'This wallet does not belong to your account.');
    }
    return { address, account };
  }
}
