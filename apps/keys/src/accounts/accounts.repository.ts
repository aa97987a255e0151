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
    const { apiTier, ...row } = await this.prisma.account.create({ data: { name } });
    return { ...row, apiTier: apiTier === 'PARTNER' ? 'partner' : 'paid', activeKeys: 0 };
  }

  async list(): Promise<AccountRecord[]> {
    const rows = await this.prisma.account.findMany({
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      include: { _count: { select: { apiKeys: { where: { deletedAt: null } } } } },
    });
    return rows.map(({ _count, apiTier, ...row }) => ({ ...row, apiTier: apiTier === 'PARTNER' ? 'partner' : 'paid', activeKeys: _count.apiKeys }));
  }
}
