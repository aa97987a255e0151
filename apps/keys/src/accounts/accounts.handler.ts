import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateAccountReply, createAccountRequestSchema, KEYS } from '@svc/contracts';
import { AccountsService } from './accounts.service';

@Controller()
export class AccountsHandler {
  constructor(private readonly accounts: AccountsService) {}

  @MessagePattern(KEYS.CREATE_ACCOUNT)
  async createAccount(@Payload() data: unknown): Promise<CreateAccountReply> {
    const account = await this.accounts.create(createAccountRequestSchema.parse(data).name);
    return { accountId: account.id };
  }
}
