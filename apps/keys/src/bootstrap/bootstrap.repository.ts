import { Inject, Injectable } from '@nestjs/common';
import { KEYS_PRISMA, KeysPrisma } from '../database/keys-prisma';

export type BootstrapOutcome = 'created' | 'exists' | 'revoked';

export interface BootstrapResult {
  outcome: BootstrapOutcome;
  /** The account of the bootstrap key (billing credits it once). */
  accountId: string;
}

export interface BootstrapAdminKey {
  accountName: string;
  description: string;
  secretHash: string;
  last6: string;
}

// Any constant not used by another lock in this database; replicas booting together queue here.
const BOOTSTRAP_LOCK_KEY = 5_130_427;

@Injectable()
export class BootstrapRepository {
  constructor(@Inject(KEYS_PRISMA) private readonly prisma: KeysPrisma) {}

  /** Creates the account and ADMIN key unless a key with this hash exists (deleted or not). */
  ensureAdminKey(input: BootstrapAdminKey): Promise<BootstrapResult> {
    return this.prisma.$transaction(async (tx): Promise<BootstrapResult> => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY}::bigint)`;
      const existing = await tx.apiKey.findUnique({ where: { secretHash: input.secretHash }, select: { deletedAt: true, accountId: true } });
      if (existing) return { outcome: existing.deletedAt ? 'revoked' : 'exists', accountId: existing.accountId };
      const account =
        (await tx.account.findFirst({ where: { name: input.accountName }, orderBy: { createdAt: 'asc' } })) ??
        (await tx.account.create({ data: { name: input.accountName } }));
      await tx.apiKey.create({
        data: { accountId: account.id, type: 'ADMIN', description: input.description, secretHash: input.secretHash, last6: input.last6 },
      });
      return { outcome: 'created', accountId: account.id };
    });
  }
}
