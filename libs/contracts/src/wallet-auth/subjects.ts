import { CreateKeyReply, CreateKeyRequest } from '../keys/subjects';

/** Sign-In-With-X and wallet-made API keys, served by the wallet service (docs/wallet.md). */
export const WALLET_AUTH = {
  /** Verify one SIGN-IN-WITH-X header and spend its nonce; the wallet's account (created on first sign-in). */
  SIGN_IN: 'wallet.cmd.siwx-sign-in.v1',
  /** A fresh token for GET /api_keys/generate_web3_key. */
  WEB3_KEY_TOKEN: 'wallet.cmd.web3-key-token.v1',
  /** Verify the signed token (once) and create an API key for the wallet's account. */
  WEB3_KEY_CREATE: 'wallet.cmd.web3-key-create.v1',
} as const;

export type WalletNetworkName = 'evm' | 'solana';

export interface SiwxSignInRequest {
  /** The SIGN-IN-WITH-X header exactly as received (base64 JSON). */
  header: string;
}
export interface SiwxSignInReply {
  accountId: string;
  /** Checksummed EVM address, or base58 Solana address. */
  address: string;
  network: WalletNetworkName;
}

export type Web3KeyTokenRequest = Record<string, never>;
export interface Web3KeyTokenReply {
  token: string;
}

export interface Web3KeyCreateRequest {
  address: string;
  /** The token signed by the wallet: EIP-191 hex for EVM, base58 or base64 Ed25519 for Solana. */
  signature: string;
  token: string;
  key: Omit<CreateKeyRequest, 'accountId'>;
}
export type Web3KeyCreateReply = CreateKeyReply;

export interface WalletAuthRpc {
  [WALLET_AUTH.SIGN_IN]: { req: SiwxSignInRequest; res: SiwxSignInReply };
  [WALLET_AUTH.WEB3_KEY_TOKEN]: { req: Web3KeyTokenRequest; res: Web3KeyTokenReply };
  [WALLET_AUTH.WEB3_KEY_CREATE]: { req: Web3KeyCreateRequest; res: Web3KeyCreateReply };
}
