import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BalanceReply, BILLING, BootstrapCreditReply } from '@svc/contracts';
import { accountRefSchema } from '../shared/schemas';
import { AccountsService } from './accounts.service';

@Controller()
export class AccountsHandler {
  constructor(private readonly accounts: AccountsService) {}

  @MessagePattern(BILLING.BALANCE)
  balance(@Payload() data: unknown): Promise<BalanceReply> {
    return this.accounts.balance(accountRefSchema.parse(data).accountId);
  }

  @MessagePattern(BILLING.BOOTSTRAP_CREDIT)
  bootstrapCredit(@Payload() data: unknown): Promise<BootstrapCreditReply> {
    return this.accounts.bootstrapCredit(accountRefSchema.parse(data).accountId);
  }
}
