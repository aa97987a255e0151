import { Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode } from '@svc/errors';
import { PlatformAccounts } from './platform-accounts';
import { WalletAccount, WalletAccounts, WalletNetwork } from './wallet-accounts';
import { WalletAccountsRepository } from './wallet-accounts.repository';
import { normalizeWalletAddress } from './wallet-address';

/** WalletAccounts: wallet -> platform account, created on first use (provided as WALLET_ACCOUNTS). */
@Injectable()
export class WalletAccountsService implements WalletAccounts {
  private readonly logger = new Logger(WalletAccountsService.name);

  constructor(
    private readonly repository: WalletAccountsRepository,
    private readonly platform: PlatformAccounts,
  ) {}

  async ensure(address: string, network: WalletNetwork): Promise<WalletAccount> {
    const normalized = this.normalize(address, network);
    const known = await this.repository.find(normalized, network);
    if (known) return known;
    const { created, ...account } = await this.repository.ensure(normalized, network, () => this.platform.create(`wallet ${network} ${normalized}`));
    if (created) this.logger.log(`created account ${account.accountId} for a ${network} wallet`);
    return account;
  }

  find(address: string, network: WalletNetwork): Promise<WalletAccount | null> {
    return this.repository.find(this.normalize(address, network), network);
  }

  private normalize(address: string, network: WalletNetwork): string {
    const normalized = normalizeWalletAddress(address, network);
    if (!normalized)
      throw new DomainError(ErrorCode.Validation, `"${address.slice(0, 64)}" is not a ${network === 'evm' ? 'valid EVM' : 'valid Solana'} address.`);
    return normalized;
  }
}
