import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateAccountReply, KEYS } from '@svc/contracts';
import { createAccountSchema } from './accounts.schemas';
import { AccountsService } from './accounts.service';

@Controller()
export class AccountsHandler {
  constructor(private readonly accounts: AccountsService) {}

  @MessagePattern(KEYS.CREATE_ACCOUNT)
  async createAccount(@Payload() data: unknown): Promise<CreateAccountReply> {
    const account = await this.accounts.create(createAccountSchema.parse(data).name);
    return { accountId: account.id };
  }
}
