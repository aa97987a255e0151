import { Inject, Injectable } from '@nestjs/common';
import { RateLimitType } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RedisAvailability } from './redis-availability';
import { hitLogKey } from './redis-limiter';

/** One entry of GET /api_keys/rate_limits/log (the reference's shape). */
export interface RateLimitLogEntry {
  apiKeyId: string;
  modelId: string;
  rateLimitTier: string;
  rateLimitType: RateLimitType;
  timestamp: string;
}

/** As the Lua scripts write it (short names keep the capped list small). */
interface StoredHit {
  k: string;
  m: string;
  t: string;
  y: RateLimitType;
  at: number;
}

/**
 * The last RATE_LIMIT_LOG_SIZE limit hits of each account, newest first: a capped Redis list
 * written by the same script that refuses the request (no extra round trip), kept 7 days after
 * the account's last hit. Redis keeps nothing on disk here: the list is an operational view, and
 * every hit is also a structured log line ("rate limit hit", "abuse block") for durable records.
 */
@Injectable()
export class RateLimitLog {
  constructor(
    private readonly availability: RedisAvailability,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async recent(accountId: string): Promise<RateLimitLogEntry[]> {
    const key = hitLogKey(this.config.REDIS_KEY_PREFIX, accountId);
    const raw = await this.availability
      .call('rate-limit log', (redis) => redis.lrange(key, 0, this.config.RATE_LIMIT_LOG_SIZE - 1))
      .catch(() => {
        throw new DomainError(ErrorCode.ServiceUnavailable, 'The rate-limit log is temporarily unavailable. Try again shortly.');
      });
    return raw.map((line) => {
      const hit = JSON.parse(line) as StoredHit;
      return { apiKeyId: hit.k, modelId: hit.m, rateLimitTier: hit.t, rateLimitType: hit.y, timestamp: new Date(hit.at).toISOString() };
    });
  }
}
