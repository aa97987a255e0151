import { Inject, Injectable } from '@nestjs/common';
import { KEYS_PRISMA, KeysPrisma } from '../database/keys-prisma';
import { AccountRecord } from './account.record';

export abstract class AccountsRepository {
  abstract create(name: string): Promise<AccountRecord>;
  abstract list(): Promise<AccountRecord[]>;
}

@Injectable()
export class PrismaAccountsRepository extends AccountsRepository {
  constructor(@Inject(KEYS_PRISMA) private readonly prisma: KeysPrisma) {
    super();
  }

  async create(name: string): Promise<AccountRecord> {
    const row = await this.prisma.account.create({ data: { name } });
    return { ...row, activeKeys: 0 };
  }

  async list(): Promise<AccountRecord[]> {
    const rows = await this.prisma.account.findMany({
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      include: { _count: { select: { apiKeys: { where: { deletedAt: null } } } } },
    });
    return rows.map(({ _count, ...row }) => ({ ...row, activeKeys: _count.apiKeys }));
  }
}
