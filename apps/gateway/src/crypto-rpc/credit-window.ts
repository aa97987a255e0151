import Redis from 'ioredis';
import { DomainError, ErrorCode } from '@svc/errors';

/** Ten-minute buckets: a call's credits count for between 24 h and 24 h 10 min, never less. */
const BUCKET_MS = 10 * 60 * 1000;
const BUCKETS = 24 * 6 + 1;

/**
 * KEYS[1] the account's hash (bucket index -> credits); ARGV now, bucket length, buckets, cap, credits.
 * Drops buckets that left the window, then adds the credits to the current bucket if the sum stays
 * within the cap: {1, bucket, sum}. Otherwise {0, the time enough old credits leave (or -1), sum}.
 */
const RESERVE = `
local now, size, n, cap, want = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local cur = math.floor(now / size)
local h = redis.call('HGETALL', KEYS[1])
local sum, live = 0, {}
for i = 1, #h, 2 do
  local b, c = tonumber(h[i]), tonumber(h[i + 1])
  if b <= cur - n then redis.call('HDEL', KEYS[1], h[i]) else sum = sum + c; live[#live + 1] = { b, c } end
end
if sum + want <= cap then
  redis.call('HINCRBY', KEYS[1], cur, want)
  redis.call('PEXPIRE', KEYS[1], (n + 1) * size)
  return { 1, cur, sum + want }
end
table.sort(live, function(x, y) return x[1] < y[1] end)
local retry, left = -1, sum
if want <= cap then
  for _, e in ipairs(live) do
    left = left - e[2]
    if left + want <= cap then retry = (e[1] + n) * size; break end
  end
end
return { 0, retry, sum }`;

/** A reservation to settle once the node has answered (or release when nothing was relayed). */
export interface CreditReservation {
  /** What the answer cost: the unused part of the reservation is given back. */
  settle(usedCredits: number): Promise<void>;
  release(): Promise<void>;
}

const NOTHING: CreditReservation = { settle: async () => undefined, release: async () => undefined };

/**
 * The JSON-RPC proxy's second cap (the reference's 10,000,000 credits per rolling 24 hours, per
 * caller; docs/wallet.md): an account's credits of the last 24 hours in Redis, reserved atomically
 * at the body's worst case before the node is called, so concurrent calls can never pass the cap
 * together, and settled down to what the answer cost.
 */
export class CreditWindow {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** Credits per rolling 24 hours; 0: no cap. */
    private readonly cap: number,
    private readonly now: () => number = Date.now,
  ) {}

  async reserve(accountId: string, credits: number): Promise<CreditReservation> {
    if (this.cap === 0 || credits === 0) return NOTHING;
    const key = `${this.prefix}rpc-credits:${accountId}`;
    const now = this.now();
    const [ok, bucketOrRetry, sum] = (await this.redis.eval(RESERVE, 1, key, now, BUCKET_MS, BUCKETS, this.cap, credits)) as number[];
    if (ok !== 1) throw this.refusal(credits, sum, bucketOrRetry, now);
    const giveBack = async (unused: number) => {
      if (unused > 0) await this.redis.hincrby(key, String(bucketOrRetry), -unused);
    };
    return { settle: (used) => giveBack(credits - used), release: () => giveBack(credits) };
  }

  private refusal(credits: number, used: number, retryAt: number, now: number): DomainError {
    const cap = this.cap.toLocaleString('en-US');
    if (retryAt < 0) {
      return new DomainError(
        ErrorCode.RateLimited,
        `Credit cap reached: this request needs ${credits} credits, more than the JSON-RPC proxy's cap of ${cap} credits per rolling 24 hours.`,
      );
    }
    const seconds = Math.max(1, Math.ceil((retryAt - now) / 1000));
    return new DomainError(
      ErrorCode.RateLimited,
      `Credit cap reached: ${cap} credits per rolling 24 hours on the JSON-RPC proxy for your account (${used.toLocaleString('en-US')} used, this request needs ${credits}). Retry in ${seconds} s.`,
      undefined,
      { retryAfterSeconds: seconds },
    );
  }
}
