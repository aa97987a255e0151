import { Inject, Injectable } from '@nestjs/common';
import { parseSignInMessageText } from '@solana/wallet-standard-util';
import { getAddress, isAddress } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { DomainError, ErrorCode } from '@svc/errors';
import { normalizeWalletAddress } from '../accounts/wallet-address';
import { WALLET_CONFIG, WalletConfig } from '../config';
import { EvmSignatures } from './evm-signatures';
import { SignInFields, VerifiedSignIn } from './sign-in-fields';
import { checkSignInFields, SignInPolicy } from './sign-in-rules';
import { SiwxPayload } from './siwx-payload';
import { verifySolanaSignature } from './solana-signatures';

const refuse = (message: string): never => {
  throw new DomainError(ErrorCode.Unauthorized, message);
};

/**
 * Verifies a decoded SIGN-IN-WITH-X payload: the message's fields (EIP-4361 for EVM wallets, the
 * Sign-In-With-Solana text for Solana), that it names the header's address and chain, and the
 * wallet's signature of it. Spending the nonce is the caller's next step (SiwxService).
 */
@Injectable()
export class SiwxVerifier {
  private readonly evm: SignInPolicy;
  private readonly solana: SignInPolicy;
  /** The clock the validity window is checked against (tests set it). */
  now: () => number = Date.now;

  constructor(
    @Inject(WALLET_CONFIG) config: WalletConfig,
    private readonly evmSignatures: EvmSignatures,
  ) {
    const url = new URL(config.SIWX_PUBLIC_URL);
    const common = { domain: url.host, origin: url.origin, maxAgeMs: config.SIWX_MAX_AGE_MS, skewMs: config.SIWX_CLOCK_SKEW_MS };
    this.evm = { ...common, chainIds: config.SIWX_EVM_CHAIN_IDS };
    const solanaChain = config.SIWX_SOLANA_CHAIN;
    // Wallets write the Chain ID as the CAIP-2 id, its genesis-hash part, or (mainnet) `mainnet`.
    const aliases = solanaChain === 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' ? ['mainnet', 'solana:mainnet'] : [];
    this.solana = { ...common, chainIds: [solanaChain, solanaChain.slice('solana:'.length), ...aliases] };
  }

  async verify(payload: SiwxPayload): Promise<VerifiedSignIn> {
    return payload.network === 'evm' ? this.verifyEvm(payload) : this.verifySolana(payload);
  }

  private async verifyEvm(payload: SiwxPayload): Promise<VerifiedSignIn> {
    if (!isAddress(payload.address, { strict: false })) refuse('The SIGN-IN-WITH-X address is not an EVM address.');
    const parsed = parseSiweMessage(payload.message);
    if (!parsed.address || !parsed.domain) refuse('Sign-in message is not an EIP-4361 (Sign-In with Ethereum) message.');
    const address = getAddress(payload.address);
    if (getAddress(parsed.address as string) !== address) refuse('Sign-in message is for another address than the header names.');
    const fields: SignInFields = { ...parsed, chainId: parsed.chainId === undefined ? undefined : String(parsed.chainId) };
    const expiresAt = checkSignInFields(fields, payload.chain, this.evm, this.now());
    if (!(await this.evmSignatures.verify(address, payload.message, payload.signature))) refuse('Sign-in signature does not match the address.');
    return { network: 'evm', address, nonce: parsed.nonce as string, expiresAt };
  }

  private verifySolana(payload: SiwxPayload): VerifiedSignIn {
    const address = normalizeWalletAddress(payload.address, 'solana') ?? refuse('The SIGN-IN-WITH-X address is not a Solana address.');
    const parsed = parseSignInMessageText(payload.message) ?? refuse('Sign-in message is not a Sign-In-With-Solana message.');
    if (parsed.address !== address) refuse('Sign-in message is for another address than the header names.');
    const fields: SignInFields = { ...parsed, issuedAt: date(parsed.issuedAt), expirationTime: date(parsed.expirationTime), notBefore: date(parsed.notBefore) };
    const expiresAt = checkSignInFields(fields, this.solanaChainOf(payload.chain, parsed.chainId), this.solana, this.now());
    if (!verifySolanaSignature(address, payload.message, payload.signature)) refuse('Sign-in signature does not match the address.');
    return { network: 'solana', address, nonce: parsed.nonce as string, expiresAt };
  }

  /** The header names the chain by CAIP-2; the message may use an alias of the same chain. */
  private solanaChainOf(headerChain: string, messageChain: string | undefined): string {
    const accepted = this.solana.chainIds;
    return accepted.includes(headerChain) && messageChain !== undefined && accepted.includes(messageChain) ? messageChain : headerChain;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const date = (text: string | undefined): Date | undefined => (text === undefined ? undefined : RFC3339.test(text) ? new Date(text) : new Date(NaN));
