import { DynamicModule, Module } from '@nestjs/common';
import { createLogger } from '@svc/logging';
import { HEALTH_CHECKS, MessagingModule } from '@svc/messaging';
import { WalletAccountsModule } from './accounts/accounts.module';
import { WalletConfig } from './config';
import { WalletDatabaseModule } from './database/database.module';
import { WALLET_DB, WalletDb, walletDbHealthCheck } from './database/wallet-db';
import { RpcModule } from './rpc/rpc.module';
import { SiwxModule } from './siwx/siwx.module';
import { Web3KeysModule } from './web3-keys/web3-keys.module';
import { X402Module } from './x402/x402.module';

/** The wallet service: wallet accounts in svc_wallet, answering WALLET.* on NATS in the 'wallet' queue group. */
@Module({})
export class AppModule {
  static forConfig(config: WalletConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        WalletDatabaseModule.forConfig(config),
        MessagingModule.forRoot({
          name: 'wallet',
          natsUrl: config.NATS_URL,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          health: {
            service: 'wallet',
            checks: { provide: HEALTH_CHECKS, inject: [WALLET_DB], useFactory: (db: WalletDb) => ({ database: walletDbHealthCheck(db) }) },
          },
        }),
        WalletAccountsModule,
        SiwxModule,
        Web3KeysModule,
        X402Module.forConfig(config, createLogger('wallet', config.LOG_LEVEL)),
        RpcModule.forConfig(config, createLogger('wallet', config.LOG_LEVEL)),
      ],
    };
  }
}
