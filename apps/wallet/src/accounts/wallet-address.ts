import { base58 } from '@scure/base';
import { getAddress, isAddress } from 'viem';
import { WalletNetwork } from './wallet-accounts';

/**
 * The one spelling of a wallet's address the service stores and compares: EIP-55 checksummed for
 * EVM (any case accepted on input), the base58 of a 32-byte Ed25519 public key for Solana.
 * Null when the text is not an address of that network.
 */
export function normalizeWalletAddress(address: string, network: WalletNetwork): string | null {
  if (network === 'evm') return isAddress(address, { strict: false }) ? getAddress(address) : null;
  return solanaPublicKey(address) ? address : null;
}

/** The 32 bytes of a base58 Solana address, or null. */
export function solanaPublicKey(address: string): Uint8Array | null {
  if (address.length < 32 || address.length > 44) return null;
  try {
    const bytes = base58.decode(address);
    return bytes.length === 32 ? bytes : null;
  } catch {
    return null;
  }
}
