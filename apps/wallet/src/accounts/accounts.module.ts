import { Module } from '@nestjs/common';
import { PlatformAccounts } from './platform-accounts';
import { WALLET_ACCOUNTS } from './wallet-accounts';
import { WalletAccountsRepository } from './wallet-accounts.repository';
import { WalletAccountsService } from './wallet-accounts.service';

/** WALLET_ACCOUNTS for the sign-in and top-up modules (needs WalletDatabaseModule and MessagingModule). */
@Module({
  providers: [WalletAccountsRepository, PlatformAccounts, WalletAccountsService, { provide: WALLET_ACCOUNTS, useExisting: WalletAccountsService }],
  exports: [WALLET_ACCOUNTS],
})
export class WalletAccountsModule {}
