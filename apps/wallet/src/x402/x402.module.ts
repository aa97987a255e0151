import { DynamicModule, Module } from '@nestjs/common';
import { Logger } from '@svc/logging';
import { WalletAccountsModule } from '../accounts/accounts.module';
import { EvmPaymentVerifier } from './evm-payment.verifier';
import { FacilitatorClient } from './facilitator.client';
import { SvmPaymentVerifier } from './svm-payment.verifier';
import { FACILITATOR, PAYMENT_VERIFIERS, TopUpService } from './top-up.service';
import { WalletLedgerService } from './wallet-ledger.service';
import { X402BillingClient } from './x402-billing.client';
import { X402_CONFIG, X402_LOGGER, X402Config } from './x402-config.type';
import { X402Handler } from './x402.handler';
import { X402Resumer } from './x402-resumer';

/** x402 top-ups, and wallet balances and transactions (X402.* on NATS); needs MessagingModule. */
@Module({})
export class X402Module {
  static forConfig(config: X402Config, logger: Logger, fetchImpl: typeof fetch = fetch): DynamicModule {
    const facilitator = config.X402_FACILITATOR_URL ? new FacilitatorClient(config.X402_FACILITATOR_URL, config.X402_FACILITATOR_TIMEOUT_MS, fetchImpl) : null;
    return {
      module: X402Module,
      imports: [WalletAccountsModule],
      controllers: [X402Handler],
      providers: [
        { provide: X402_CONFIG, useValue: config },
        { provide: X402_LOGGER, useValue: logger },
        { provide: FACILITATOR, useValue: facilitator },
        { provide: PAYMENT_VERIFIERS, useValue: [new EvmPaymentVerifier(config.X402_BASE_RPC_URL), new SvmPaymentVerifier()] },
        X402BillingClient,
        TopUpService,
        WalletLedgerService,
        X402Resumer,
      ],
    };
  }
}
