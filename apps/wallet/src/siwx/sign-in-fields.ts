/** The fields of an EIP-4361 or Sign-In-With-Solana message the rules check (as parsed from the signed text). */
export interface SignInFields {
  domain?: string;
  address?: string;
  uri?: string;
  version?: string;
  chainId?: string;
  nonce?: string;
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
}

/** What a verified message proves, and until when its nonce must stay spent. */
export interface VerifiedSignIn {
  network: 'evm' | 'solana';
  /** Normalized (checksummed EVM, base58 Solana). */
  address: string;
  nonce: string;
  /** Epoch ms after which the message is refused anyway (expiration, or issued-at + max age, plus skew). */
  expiresAt: number;
}
