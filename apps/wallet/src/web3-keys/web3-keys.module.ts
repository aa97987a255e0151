import { Module } from '@nestjs/common';
import { WalletAccountsModule } from '../accounts/accounts.module';
import { SiwxModule } from '../siwx/siwx.module';
import { WalletSecretsRepository } from './wallet-secrets.repository';
import { Web3KeyTokens } from './web3-key-tokens';
import { Web3KeysHandler } from './web3-keys.handler';
import { Web3KeysService } from './web3-keys.service';

/** WALLET_AUTH.WEB3_KEY_TOKEN and WEB3_KEY_CREATE (needs WalletDatabaseModule and MessagingModule). */
@Module({
  imports: [WalletAccountsModule, SiwxModule],
  controllers: [Web3KeysHandler],
  providers: [WalletSecretsRepository, Web3KeyTokens, Web3KeysService],
})
export class Web3KeysModule {}
