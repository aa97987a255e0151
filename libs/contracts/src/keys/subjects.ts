import { ApiKeyType, ApiKeyView, AuthenticatedKey, ConsumptionLimits, LimitPeriod, ModelPrivacy } from './api-key';

export const KEYS = {
  VERIFY: 'keys.cmd.verify.v1',
  LIST: 'keys.cmd.list.v1',
  GET: 'keys.cmd.get.v1',
  CREATE: 'keys.cmd.create.v1',
  UPDATE: 'keys.cmd.update.v1',
  DELETE: 'keys.cmd.delete.v1',
  CREATE_ACCOUNT: 'keys.cmd.create-account.v1',
  /** Event, fire-and-forget: the gateway saw these keys used (throttled per key). */
  USED: 'keys.evt.used.v1',
  /**
   * Event broadcast to every gateway (no queue group): drop these keys from auth caches now.
   * Sent when keys are revoked, and when their rate limits change (the next request verifies again).
   */
  REVOKED: 'keys.evt.revoked.v1',
} as const;

/** `secretHash` is the hex SHA-256 of the bearer secret; secrets never cross NATS. */
export interface VerifyKeyRequest {
  secretHash: string;
}
export interface VerifyKeyReply {
  key: AuthenticatedKey | null;
}

export interface AccountScoped {
  accountId: string;
}

export type ListKeysRequest = AccountScoped;
export interface ListKeysReply {
  data: ApiKeyView[];
}

export interface GetKeyRequest extends AccountScoped {
  id: string;
}
export interface GetKeyReply {
  data: ApiKeyView;
}

export interface CreateKeyRequest extends AccountScoped {
  apiKeyType: ApiKeyType;
  description: string;
  /** ISO date-time or null for a key that does not expire. */
  expiresAt: string | null;
  consumptionLimits: ConsumptionLimits;
  limitPeriod: LimitPeriod;
  modelPrivacy: ModelPrivacy;
}
export interface CreateKeyReply {
  /** The secret, returned exactly once. */
  apiKey: string;
  data: ApiKeyView;
}

export interface UpdateKeyRequest extends AccountScoped {
  id: string;
  description?: string;
  expiresAt?: string | null;
  consumptionLimits?: ConsumptionLimits;
  limitPeriod?: LimitPeriod;
  modelPrivacy?: ModelPrivacy;
}
export interface UpdateKeyReply {
  data: ApiKeyView;
}

export interface DeleteKeyRequest extends AccountScoped {
  id: string;
}
export interface DeleteKeyReply {
  success: true;
}

export interface CreateAccountRequest {
  name: string;
}
export interface CreateAccountReply {
  accountId: string;
}

export interface KeysUsedEvent {
  /** Key ids and the time (ISO) each was last seen in use. */
  uses: Array<{ id: string; at: string }>;
}
export interface KeysRevokedEvent {
  ids: string[];
}

export interface KeysRpc {
  [KEYS.VERIFY]: { req: VerifyKeyRequest; res: VerifyKeyReply };
  [KEYS.LIST]: { req: ListKeysRequest; res: ListKeysReply };
  [KEYS.GET]: { req: GetKeyRequest; res: GetKeyReply };
  [KEYS.CREATE]: { req: CreateKeyRequest; res: CreateKeyReply };
  [KEYS.UPDATE]: { req: UpdateKeyRequest; res: UpdateKeyReply };
  [KEYS.DELETE]: { req: DeleteKeyRequest; res: DeleteKeyReply };
  [KEYS.CREATE_ACCOUNT]: { req: CreateAccountRequest; res: CreateAccountReply };
}

export interface KeysEvents {
  [KEYS.USED]: KeysUsedEvent;
  [KEYS.REVOKED]: KeysRevokedEvent;
}
