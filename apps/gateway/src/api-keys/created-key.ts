import { CreateKeyReply } from '@svc/contracts';

/** The answer to a created key (`POST /api_keys`, `POST /api_keys/generate_web3_key`): the secret, shown once, and the key's settings. */
export function createdKeyData({ apiKey, data }: CreateKeyReply) {
  return {
    id: data.id,
    apiKey,
    apiKeyType: data.apiKeyType,
    description: data.description,
    expiresAt: data.expiresAt,
    consumptionLimit: data.consumptionLimits,
    limitPeriod: data.limitPeriod,
    modelPrivacy: data.modelPrivacy,
  };
}
