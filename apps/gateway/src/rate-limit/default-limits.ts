import { ApiTier, RateLimitClass } from '@svc/contracts';

export interface ClassLimits {
  /** Requests per minute. */
  rpm: number;
  /** Tokens (prompt plus completion) per minute; text models only. */
  tpm: number | null;
}

const text = (rpm: number, tpm: number): ClassLimits => ({ rpm, tpm });
const requests = (rpm: number): ClassLimits => ({ rpm, tpm: null });

/**
 * The spec's default limits (Limits section). The partner tier's video limits are not stated
 * there, so they stay at the paid tier's. No class has a default per-day limit; operators set
 * RPD as an override (`npm run svc -- limits set ... --rpd <n>`).
 */
export const DEFAULT_LIMITS: Readonly<Record<ApiTier, Readonly<Record<RateLimitClass, ClassLimits>>>> = {
  paid: {
    'text:XS': text(500, 1_000_000),
    'text:S': text(75, 750_000),
    'text:M': text(50, 750_000),
    'text:L': text(20, 500_000),
    image: requests(20),
    audio: requests(60),
    embedding: requests(500),
    'video-queue': requests(40),
    'video-retrieve': requests(120),
    augment: requests(60),
    // The reference's per-minute cap of the JSON-RPC proxy (its 24-hour credit cap is not enforced: docs/wallet.md).
    'crypto-rpc': requests(100),
  },
  partner: {
    'text:XS': text(500, 2_000_000),
    'text:S': text(150, 1_500_000),
    'text:M': text(100, 1_500_000),
    'text:L': text(60, 1_000_000),
    image: requests(60),
    audio: requests(120),
    embedding: requests(500),
    'video-queue': requests(40),
    'video-retrieve': requests(120),
    augment: requests(120),
    'crypto-rpc': requests(100),
  },
};
