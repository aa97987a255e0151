import { Injectable } from '@nestjs/common';
import { AccountRecord } from './account.record';
import { AccountsRepository } from './accounts.repository';

@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  create(name: string): Promise<AccountRecord> {
    return this.accounts.create(name.trim());
  }

  list(): Promise<AccountRecord[]> {
    return this.accounts.list();
  }
}
