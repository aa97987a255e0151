import { BillableUsage, BillingCurrency, LimitPeriod } from '@svc/contracts';
import { GatewayFallback, UsageLine } from '../reservations/reservation.records';

export interface LeaseOpenParams {
  id: string;
  accountId: string;
  apiKeyId: string | null;
  limits: { usd: bigint | null; diem: bigint | null; period: LimitPeriod };
  /** The worst case of the request that asked, in both currencies. */
  unit: { usd: bigint; diem: bigint };
  minUnits: number;
  maxUnits: number;
  fraction: number;
  admitMs: number;
  ttlMs: number;
}

export interface LeaseOpenResult {
  outcome: 'granted' | 'exact';
  currency: BillingCurrency | null;
  granted: bigint;
  /** Before the grant (the grant included). */
  available: { usd: bigint; diem: bigint };
  admitUntil: Date | null;
  expiresAt: Date | null;
  replay: boolean;
}

export type LeaseCloseStatus = 'closed' | 'closing' | 'already-closed' | 'not-found';

/** One request admitted under a lease, priced, as billing_settle_leased takes it (see the migration). */
export interface LeasedItem {
  id: string;
  leaseId: string;
  apiKeyId: string | null;
  currency: BillingCurrency;
  requestId: string;
  model: { id: string; name: string; type: string };
  pricing: unknown;
  worstCase: BillableUsage;
  /** The request's hold inside the lease. */
  held: bigint;
  /** Its cost in the lease's currency (0: a release). */
  charge: bigint;
  lines: UsageLine[];
  promptTokens: number | null;
  completionTokens: number | null;
  executionMs: number | null;
  source: 'SERVICE' | 'GATEWAY';
  outcome: string;
  /** The gateway's count of a cut or broken stream: kept on a held child until the service settles. */
  fallback: GatewayFallback | null;
}

/** `deferred`: the child is a held reservation (a gateway fallback); billing_settle finalizes it. */
export type LeasedStatus = 'settled' | 'released' | 'fallback-recorded' | 'already-final' | 'not-found' | 'deferred';

export interface LeasedResult {
  id: string;
  status: LeasedStatus;
  currency: BillingCurrency | null;
  charged: bigint;
  /** What the usage cost beyond the request's hold: never charged. */
  overHold: bigint;
}

export interface ExpiredLease {
  status: 'expired' | 'skipped';
  released: bigint;
  settled: number;
  /** Null when the gateway never closed it (it died). */
  admitted: number | null;
}
