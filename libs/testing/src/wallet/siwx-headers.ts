import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { base58, base64 } from '@scure/base';
import { createSignInMessageText } from '@solana/wallet-standard-util';
import { createSiweMessage } from 'viem/siwe';
import { privateKeyToAccount } from 'viem/accounts';

/** Fixed test wallets (never funded anywhere): viem accounts for EVM, Ed25519 seeds for Solana. */
export const EVM_KEYS = {
  alice: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  bob: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
} as const;

export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

export interface SignInOptions {
  domain?: string;
  uri?: string;
  chainId?: number;
  headerChainId?: number | string;
  nonce?: string;
  issuedAt?: Date;
  expirationTime?: Date | null;
  /** Changes the message after signing. */
  tamper?: (message: string) => string;
  /** Changes the signature after signing. */
  tamperSignature?: (signature: string) => string;
  /** The address the header claims (default: the signer's). */
  headerAddress?: string;
}

export const freshNonce = (): string => randomBytes(8).toString('hex');

export const encodeHeader = (payload: object): string => Buffer.from(JSON.stringify(payload)).toString('base64');

/** A SIGN-IN-WITH-X header signed by an EVM wallet over an EIP-4361 message (as the reference's example builds it). */
export async function evmSignIn(privateKey: `0x${string}`, publicUrl: string, options: SignInOptions = {}): Promise<string> {
  const account = privateKeyToAccount(privateKey);
  const url = new URL(publicUrl);
  const issuedAt = options.issuedAt ?? new Date();
  const message = createSiweMessage({
    domain: options.domain ?? url.host,
    address: account.address,
    statement: 'Sign in to the API',
    uri: options.uri ?? url.origin,
    version: '1',
    chainId: options.chainId ?? 8453,
    nonce: options.nonce ?? freshNonce(),
    issuedAt,
    ...(options.expirationTime === null ? {} : { expirationTime: options.expirationTime ?? new Date(issuedAt.getTime() + 5 * 60_000) }),
  });
  const signature = await account.signMessage({ message });
  return encodeHeader({
    address: options.headerAddress ?? account.address,
    message: options.tamper ? options.tamper(message) : message,
    signature: options.tamperSignature ? options.tamperSignature(signature) : signature,
    timestamp: Date.now(),
    chainId: options.headerChainId ?? options.chainId ?? 8453,
  });
}

export interface SolanaWallet {
  address: string;
  secretKey: Uint8Array;
}

export function solanaWallet(seedByte: number): SolanaWallet {
  const secretKey = new Uint8Array(32).fill(seedByte);
  return { address: base58.encode(ed25519.getPublicKey(secretKey)), secretKey };
}

/** A SIGN-IN-WITH-X header signed with Ed25519 over a Sign-In-With-Solana message. */
export function solanaSignIn(
  wallet: SolanaWallet,
  publicUrl: string,
  options: Omit<SignInOptions, 'chainId'> & { chainId?: string; encoding?: 'base58' | 'base64' } = {},
): string {
  const url = new URL(publicUrl);
  const issuedAt = options.issuedAt ?? new Date();
  const message = createSignInMessageText({
    domain: options.domain ?? url.host,
    address: wallet.address,
    statement: 'Sign in to the API',
    uri: options.uri ?? url.origin,
    version: '1',
    chainId: options.chainId ?? SOLANA_MAINNET,
    nonce: options.nonce ?? freshNonce(),
    issuedAt: issuedAt.toISOString(),
    ...(options.expirationTime === null ? {} : { expirationTime: (options.expirationTime ?? new Date(issuedAt.getTime() + 5 * 60_000)).toISOString() }),
  });
  const raw = ed25519.sign(new TextEncoder().encode(message), wallet.secretKey);
  const signature = options.encoding === 'base64' ? base64.encode(raw) : base58.encode(raw);
  return encodeHeader({
    address: options.headerAddress ?? wallet.address,
    message: options.tamper ? options.tamper(message) : message,
    signature: options.tamperSignature ? options.tamperSignature(signature) : signature,
    timestamp: Date.now(),
    chainId: options.headerChainId ?? SOLANA_MAINNET,
    type: 'ed25519',
  });
}
