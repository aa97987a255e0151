import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  X402,
  X402BalanceReply,
  X402PaymentTermsReply,
  X402RequirementsReply,
  X402TopUpReply,
  x402TopUpRequestSchema,
  X402TransactionsReply,
  x402TransactionsRequestSchema,
  x402WalletRequestSchema,
} from '@svc/contracts';
import { WALLET_CONFIG, WalletConfig } from '../config';
import { siwxTerms } from './siwx-terms';
import { TopUpService } from './top-up.service';
import { WalletLedgerService } from './wallet-ledger.service';

@Controller()
export class X402Handler {
  constructor(
    private readonly topUps: TopUpService,
    private readonly ledger: WalletLedgerService,
    @Inject(WALLET_CONFIG) private readonly config: WalletConfig,
  ) {}

  @MessagePattern(X402.REQUIREMENTS)
  requirements(): X402RequirementsReply {
    return { x402Version: 2, accepts: this.topUps.requirements() };
  }

  /** For the gateway's 402 to a signed-in wallet short of credit (docs/wallet.md, "Out of credit"). */
  @MessagePattern(X402.PAYMENT_TERMS)
  paymentTerms(): X402PaymentTermsReply {
    return { x402Version: 2, accepts: this.topUps.offered(), siwx: siwxTerms(this.config) };
  }

  @MessagePattern(X402.TOP_UP)
  topUp(@Payload() data: unknown): Promise<X402TopUpReply> {
    const request = x402TopUpRequestSchema.parse(data);
    return this.topUps.topUp(request.payment, request.requestId);
  }

  @MessagePattern(X402.BALANCE)
  balance(@Payload() data: unknown): Promise<X402BalanceReply> {
    return this.ledger.balance(x402WalletRequestSchema.parse(data));
  }

  @MessagePattern(X402.TRANSACTIONS)
  transactions(@Payload() data: unknown): Promise<X402TransactionsReply> {
    return this.ledger.transactions(x402TransactionsRequestSchema.parse(data));
  }
}
