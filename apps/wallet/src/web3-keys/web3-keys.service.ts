import { Inject, Injectable } from '@nestjs/common';
import { KEYS, Web3KeyCreateReply, Web3KeyCreateRequest, Web3KeyTokenReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { QUICK_CALL_IDLE_MS, RpcClient } from '@svc/messaging';
import { WALLET_ACCOUNTS, WalletAccounts, WalletNetwork } from '../accounts/wallet-accounts';
import { normalizeWalletAddress } from '../accounts/wallet-address';
import { EvmSignatures } from '../siwx/evm-signatures';
import { NonceStore } from '../siwx/nonce-store';
import { verifySolanaSignature } from '../siwx/solana-signatures';
import { Web3KeyTokens } from './web3-key-tokens';

/**
 * generate_web3_key: the wallet signs a token this service issued (EIP-191 for EVM, Ed25519 for
 * Solana); once, and before it expires, that proves the wallet, and an API key is created for the
 * wallet's account (the same account Sign-In-With-X uses, created here if it is the first use).
 */
@Injectable()
export class Web3KeysService {
  constructor(
    private readonly tokens: Web3KeyTokens,
    private readonly evm: EvmSignatures,
    private readonly nonces: NonceStore,
    @Inject(WALLET_ACCOUNTS) private readonly accounts: WalletAccounts,
    private readonly rpc: RpcClient,
  ) {}

  async token(): Promise<Web3KeyTokenReply> {
    return { token: await this.tokens.issue() };
  }

  async create(request: Web3KeyCreateRequest, requestId?: string): Promise<Web3KeyCreateReply> {
    const { nonce, expiresAt } = await this.tokens.check(request.token);
    const network: WalletNetwork = request.address.startsWith('0x') ? 'evm' : 'solana';
    const address = normalizeWalletAddress(request.address, network);
    if (!address) throw new DomainError(ErrorCode.Validation, 'address must be an EVM (0x...) or Solana (base58) wallet address.');
    const signed =
      network === 'evm'
        ? await this.evm.verify(address as `0x${string}`, request.token, request.signature)
        : verifySolanaSignature(address, request.token, request.signature);
    if (!signed) throw new DomainError(ErrorCode.Unauthorized, 'The signature is not the token signed by this address.');
    if (!(await this.nonces.spend('web3-key', '', nonce, expiresAt))) {
      throw new DomainError(ErrorCode.Unauthorized, 'The token has been used already: GET /api_keys/generate_web3_key for a new one.');
    }
    const { accountId } = await this.accounts.ensure(address, network);
    return this.rpc.send(KEYS.CREATE, { accountId, ...request.key }, { requestId, timeoutMs: 5_000, idleTimeoutMs: QUICK_CALL_IDLE_MS });
  }
}
