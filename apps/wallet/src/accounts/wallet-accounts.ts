/**
 * The one way the wallet service maps a wallet to the platform account it pays from and is
 * credited to (Sign-In-With-X creates it on the first valid sign-in; x402 top-ups credit it).
 * Implemented by WalletAccountsService; injected by this token.
 */
export const WALLET_ACCOUNTS = Symbol('WALLET_ACCOUNTS');

export type WalletNetwork = 'evm' | 'solana';

export interface WalletAccount {
  /** The platform account id (the same ids keys and billing use). */
  accountId: string;
  /** Checksummed EVM address, or base58 Solana address. */
  address: string;
  network: WalletNetwork;
}

export interface WalletAccounts {
  /** The wallet's account, created (with a zero balance) if this is its first use. Idempotent under races. */
  ensure(address: string, network: WalletNetwork): Promise<WalletAccount>;
  /** The wallet's account, or null if it never signed in or topped up. */
  find(address: string, network: WalletNetwork): Promise<WalletAccount | null>;
}
