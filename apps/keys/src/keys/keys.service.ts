import { Injectable } from '@nestjs/common';
import { ApiKeyView, AuthenticatedKey, CreateKeyReply } from '@svc/contracts';
import { generateApiKeySecret, hashApiKeySecret, lastSixOf, secretHashesEqual } from '@svc/auth';
import { DomainError, ErrorCode } from '@svc/errors';
import { ApiKeyPatch, ApiKeyRecord } from './api-key.record';
import { toApiKeyView, toAuthenticatedKey } from './api-key.mapper';
import { KeyEvents } from './key-events';
import { RateLimitsRepository } from '../rate-limits/rate-limits.repository';
import { KeysRepository } from './keys.repository';
import { CreateKeyInput, isUuid, UpdateKeyInput } from './keys.schemas';

/** The public API's documented cap on active (not deleted) keys per account. */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 500;

const keyNotFound = () => new DomainError(ErrorCode.NotFound, 'API key not found');

@Injectable()
export class KeysService {
  constructor(
    private readonly keys: KeysRepository,
    private readonly events: KeyEvents,
    private readonly rateLimits: RateLimitsRepository,
  ) {}

  /**
   * The key for a secret hash, or null when unknown or deleted. Expiry is the gateway's call.
   * Carries the account's tier and rate-limit overrides, so admission needs no extra hop.
   */
  async verify(secretHash: string): Promise<AuthenticatedKey | null> {
    const key = await this.keys.findBySecretHash(secretHash);
    if (!key || key.deletedAt || !secretHashesEqual(key.secretHash, secretHash)) return null;
    const rateLimits = await this.rateLimits.forKey(key.accountId, key.id);
    return { ...toAuthenticatedKey(key), ...(rateLimits ? { rateLimits } : {}) };
  }

  async list(accountId: string): Promise<ApiKeyView[]> {
    return (await this.keys.listActive(accountId)).map(toApiKeyView);
  }

  async get(accountId: string, id: string): Promise<ApiKeyView> {
    return toApiKeyView(await this.requireActive(accountId, id));
  }

  async create(input: CreateKeyInput): Promise<CreateKeyReply> {
    const secret = generateApiKeySecret();
    const result = await this.keys.create(
      {
        accountId: input.accountId,
        type: input.apiKeyType,
        description: input.description,
        secretHash: hashApiKeySecret(secret),
        last6: lastSixOf(secret),
        expiresAt: input.expiresAt,
        limitUsd: input.consumptionLimits.usd,
        limitDiem: input.consumptionLimits.diem,
        limitPeriod: input.limitPeriod,
        modelPrivacy: input.modelPrivacy,
      },
      MAX_ACTIVE_KEYS_PER_ACCOUNT,
    );
    switch (result.status) {
      case 'created':
        return { apiKey: secret, data: toApiKeyView(result.key) };
      case 'account-not-found':
        throw new DomainError(ErrorCode.NotFound, 'Account not found');
      case 'limit-reached':
        throw new DomainError(ErrorCode.Validation, `An account can have at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active API keys. Delete unused keys first.`);
    }
  }

  async update(input: UpdateKeyInput): Promise<ApiKeyView> {
    const before = await this.requireActive(input.accountId, input.id);
    const patch: ApiKeyPatch = {
      description: input.description,
      expiresAt: input.expiresAt,
      limitUsd: input.consumptionLimits?.usd,
      limitDiem: input.consumptionLimits?.diem,
      limitPeriod: input.limitPeriod,
      modelPrivacy: input.modelPrivacy,
    };
    const after = await this.keys.update(input.accountId, input.id, patch);
    if (!after) throw keyNotFound();
    // Gateways cache a key with its expiry and limits; an earlier expiry or new limits must reach them now.
    if (shortensExpiry(before.expiresAt, after.expiresAt) || changesLimits(before, after)) this.events.revoked([after.id]);
    return toApiKeyView(after);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.keys.softDelete(accountId, id))) throw keyNotFound();
    this.events.revoked([id]);
  }

  private async requireActive(accountId: string, id: string): Promise<ApiKeyRecord> {
    const key = isUuid(id) ? await this.keys.findActive(accountId, id) : null;
    if (!key) throw keyNotFound();
    return key;
  }
}

/** Consumption limits and their window: what a gateway admits the key's requests against (and leases credit by). */
export function changesLimits(before: ApiKeyRecord, after: ApiKeyRecord): boolean {
  return before.limitUsd !== after.limitUsd || before.limitDiem !== after.limitDiem || before.limitPeriod !== after.limitPeriod;
}

export function shortensExpiry(before: Date | null, after: Date | null): boolean {
  return after !== null && (before === null || after.getTime() < before.getTime());
}
