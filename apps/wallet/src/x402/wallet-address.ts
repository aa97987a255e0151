import { DomainError, ErrorCode } from '@svc/errors';
import { normalizeWalletAddress } from '../accounts/wallet-address';
import { WalletNetwork } from '../accounts/wallet-accounts';

/** A path's wallet address, normalized as wallet accounts store it (checksummed EVM, or base58 Solana). */
export function parseWalletAddress(raw: string): { address: string; family: WalletNetwork } {
  const family: WalletNetwork = raw.startsWith('0x') ? 'evm' : 'solana';
  const address = normalizeWalletAddress(raw, family);
  if (address) return { address, family };
  throw new DomainError(ErrorCode.Validation, 'walletAddress must be an EVM (0x + 40 hex) or Solana (base58) address.', {
    _errors: [],
    walletAddress: { _errors: ['not an EVM or Solana address'] },
  });
}
