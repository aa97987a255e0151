import { createHash, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { DomainError, ErrorCode } from '@svc/errors';

/** How long an answer replays (the reference's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What replays: the status, the body and the billing headers of the first answer. */
export interface StoredAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface Entry {
  /** Hash of the network and the normalized body: the same key with another body is refused. */
  fingerprint: string;
  /** Set while the first request runs: a duplicate meanwhile is refused, never run (nor billed) twice. */
  pending?: string;
  answer?: StoredAnswer;
}

export type Begun =
  { kind: 'replay'; answer: StoredAnswer } | { kind: 'claimed'; release: () => Promise<void>; store: (answer: StoredAnswer) => Promise<void> };

/** Deletes the key only while it still holds this request's pending marker. */
const RELEASE_IF_OURS = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/**
 * `Idempotency-Key` for the JSON-RPC proxy, in Redis, per account and key (docs/wallet.md): the
 * first request claims the key with SET NX and runs; its 200 is stored for 24 h and replayed to a
 * retry with the same body, which runs and bills nothing. A failed first request frees the key.
 */
export class IdempotencyStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** How long a claim outlives a gateway that died holding it. */
    private readonly pendingTtlMs: number,
  ) {}

  static fingerprint(network: string, body: unknown): string {
    return createHash('sha256').update(network).update('\n').update(JSON.stringify(body)).digest('base64url');
  }

  async begin(accountId: string, key: string, fingerprint: string): Promise<Begun> {
    const redisKey = `${this.prefix}rpc-idem:${accountId}:${key}`;
    const claim = JSON.stringify({ fingerprint, pending: randomUUID() } satisfies Entry);
    const claimed = await this.redis.set(redisKey, claim, 'PX', this.pendingTtlMs, 'NX');
    if (claimed === null) return { kind: 'replay', answer: await this.existing(redisKey, fingerprint) };
    return {
      kind: 'claimed',
      release: async () => {
        await this.redis.eval(RELEASE_IF_OURS, 1, redisKey, claim);
      },
      store: async (answer) => {
        await this.redis.set(redisKey, JSON.stringify({ fingerprint, answer } satisfies Entry), 'PX', IDEMPOTENCY_TTL_MS);
      },
    };
  }

  private async existing(redisKey: string, fingerprint: string): Promise<StoredAnswer> {
    const raw = await this.redis.get(redisKey);
    // Freed or expired between the two calls: the caller retries and finds it free.
    if (raw === null) throw inProgress();
    const entry = JSON.parse(raw) as Entry;
    if (entry.fingerprint !== fingerprint) {
      throw new DomainError(
        ErrorCode.Validation,
        'This Idempotency-Key was used with a different request body (or network); use a new key for a new request.',
        {
          _errors: ['idempotency_key_reused'],
        },
      );
    }
    if (!entry.answer) throw inProgress();
    return entry.answer;
  }
}

const inProgress = () =>
  new DomainError(ErrorCode.Conflict, 'A request with this Idempotency-Key is still running; retry in a moment to get its answer.', {
    _errors: ['idempotency_key_in_progress'],
  });
