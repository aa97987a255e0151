import { Module } from '@nestjs/common';
import { WalletAccountsModule } from '../accounts/accounts.module';
import { WALLET_CONFIG, WalletConfig } from '../config';
import { EvmSignatures } from './evm-signatures';
import { NonceStore } from './nonce-store';
import { SiwxHandler } from './siwx.handler';
import { SIWX_VERIFIED_HEADERS, SiwxService } from './siwx.service';
import { SiwxVerifier } from './siwx.verifier';
import { VerifiedHeaders } from './verified-headers';

/** WALLET_AUTH.SIGN_IN (needs WalletDatabaseModule and MessagingModule). */
@Module({
  imports: [WalletAccountsModule],
  controllers: [SiwxHandler],
  providers: [
    EvmSignatures,
    SiwxVerifier,
    NonceStore,
    SiwxService,
    { provide: SIWX_VERIFIED_HEADERS, inject: [WALLET_CONFIG], useFactory: (config: WalletConfig) => new VerifiedHeaders(config.SIWX_VERIFIED_CACHE_MAX) },
  ],
  exports: [EvmSignatures, NonceStore],
})
export class SiwxModule {}
