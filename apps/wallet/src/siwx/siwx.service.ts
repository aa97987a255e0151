import { Inject, Injectable } from '@nestjs/common';
import { SiwxSignInReply } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { WALLET_ACCOUNTS, WalletAccounts } from '../accounts/wallet-accounts';
import { NonceStore } from './nonce-store';
import { decodeSiwxPayload } from './siwx-payload';
import { SiwxVerifier } from './siwx.verifier';
import { VerifiedHeaders } from './verified-headers';

export const SIWX_VERIFIED_HEADERS = Symbol('SIWX_VERIFIED_HEADERS');

/** One sign-in: verify the header, spend its nonce (once, ever), then the wallet's account (created on first sign-in). */
@Injectable()
export class SiwxService {
  constructor(
    private readonly verifier: SiwxVerifier,
    private readonly nonces: NonceStore,
    @Inject(SIWX_VERIFIED_HEADERS) private readonly verified: VerifiedHeaders,
    @Inject(WALLET_ACCOUNTS) private readonly accounts: WalletAccounts,
  ) {}

  async signIn(header: string): Promise<SiwxSignInReply> {
    const now = this.verifier.now();
    let signIn = this.verified.get(header, now);
    if (!signIn) {
      signIn = await this.verifier.verify(decodeSiwxPayload(header));
      this.verified.set(header, signIn);
    }
    if (!(await this.nonces.spend(`siwx:${signIn.network}`, signIn.address, signIn.nonce, signIn.expiresAt))) {
      throw new DomainError(ErrorCode.Unauthorized, 'Sign-in nonce has been used already: sign a new message with a fresh nonce for each request.');
    }
    const account = await this.accounts.ensure(signIn.address, signIn.network);
    return { accountId: account.accountId, address: account.address, network: account.network };
  }
}
