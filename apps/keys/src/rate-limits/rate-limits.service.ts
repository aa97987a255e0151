import { Injectable } from '@nestjs/common';
import { ApiTier, RateLimitOverride } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { KeyEvents } from '../keys/key-events';
import { KeysRepository } from '../keys/keys.repository';
import { AccountRateLimitsRecord, RateLimitsRepository } from './rate-limits.repository';
import { ClearLimitsInput, SetLimitsInput } from './rate-limits.schemas';

const accountNotFound = (id: string) => new DomainError(ErrorCode.NotFound, `Account ${id} not found`);
const keyNotFound = (id: string) => new DomainError(ErrorCode.NotFound, `API key ${id} not found (or deleted)`);

export interface LimitsChange {
  accountId?: string;
  keyId?: string;
  /** The override after the change; null when it was removed. */
  override?: RateLimitOverride | null;
  removed?: number;
  /** Keys whose cached authentication gateways were told to drop, so the change applies now. */
  keysRefreshed: number;
}

/**
 * Operator-set rate limits: an account's API tier, overrides of its tier defaults, and a key's
 * own lower limits. Gateways read them with every key verification; after a change they are
 * told to drop the affected keys from their auth caches (`keys.evt.revoked.v1`, which only
 * evicts: the next request verifies the key again and gets the new limits).
 */
@Injectable()
export class RateLimitsService {
  constructor(
    private readonly limits: RateLimitsRepository,
    private readonly keys: KeysRepository,
    private readonly events: KeyEvents,
  ) {}

  async show(accountId: string): Promise<AccountRateLimitsRecord> {
    const found = await this.limits.forAccount(accountId);
    if (!found) throw accountNotFound(accountId);
    return found;
  }

  async setTier(accountId: string, tier: ApiTier): Promise<LimitsChange & { apiTier: ApiTier }> {
    if (!(await this.limits.setTier(accountId, tier))) throw accountNotFound(accountId);
    return { accountId, apiTier: tier, keysRefreshed: await this.refreshAccount(accountId) };
  }

  async set(input: SetLimitsInput): Promise<LimitsChange> {
    const patch = { rpm: input.rpm, tpm: input.tpm, rpd: input.rpd };
    if (input.keyId) {
      const override = await this.limits.patchKey(input.keyId, input.target, patch);
      if (override === undefined) throw keyNotFound(input.keyId);
      this.events.revoked([input.keyId]);
      return { keyId: input.keyId, override, keysRefreshed: 1 };
    }
    const accountId = input.accountId as string;
    const override = await this.limits.patchAccount(accountId, input.target, patch);
    if (override === undefined) throw accountNotFound(accountId);
    return { accountId, override, keysRefreshed: await this.refreshAccount(accountId) };
  }

  async clear(input: ClearLimitsInput): Promise<LimitsChange> {
    if (input.keyId) {
      const key = await this.keys.findById(input.keyId);
      if (!key || key.deletedAt) throw keyNotFound(input.keyId);
      const removed = await this.limits.clearKey(input.keyId, input.target);
      this.events.revoked([input.keyId]);
      return { keyId: input.keyId, removed, keysRefreshed: 1 };
    }
    const accountId = input.accountId as string;
    if (!(await this.limits.forAccount(accountId))) throw accountNotFound(accountId);
    const removed = await this.limits.clearAccount(accountId, input.target);
    return { accountId, removed, keysRefreshed: await this.refreshAccount(accountId) };
  }

  private async refreshAccount(accountId: string): Promise<number> {
    const ids = (await this.keys.listActive(accountId)).map((k) => k.id);
    this.events.revoked(ids);
    return ids.length;
  }
}
