import { LimitPeriod } from '../keys/api-key';
import { BillingCurrency, Nano, NanoAmounts } from './money';
import { BillableUsage } from './usage';

export interface BilledModel {
  id: string;
  name: string;
  /** Catalog model type: text, image, tts, ... */
  type: string;
}

/**
 * Holds the worst-case cost of a request before any model runs. Atomic per account: concurrent
 * reservations can never together exceed the balance or the key's consumption limit.
 */
export interface ReserveRequest {
  /** A UUID chosen by the caller; sending the same reservation again returns the first answer. */
  reservationId: string;
  requestId: string;
  accountId: string;
  apiKeyId: string;
  /** The key's consumption limits (null: none) and their window, as the gateway has the key. */
  keyLimits: { usd: number | null; diem: number | null; period: LimitPeriod };
  model: BilledModel;
  /** The model's `model_spec.pricing` at admission; settlement prices with the same snapshot. */
  pricing: unknown;
  /** An upper bound of what the request can consume (e.g. prompt tokens + max output tokens). */
  worstCase: BillableUsage;
  /** How long the hold lives without a settlement before the sweeper releases it. */
  ttlMs?: number;
}

export interface ReserveReply {
  reservationId: string;
  /** The balance the request draws from. */
  currency: BillingCurrency;
  /** Held now: the worst-case cost in `currency`. */
  heldNano: Nano;
  /** Available balances before this request (balance minus other requests' holds). */
  balancesBefore: NanoAmounts;
  /** True when this reservation existed already (a retried reserve). */
  replay: boolean;
}

/** The request a reservation was refused for, asked again without holding anything. */
export type MayFitLaterRequest = Omit<ReserveRequest, 'reservationId' | 'ttlMs'>;

export interface MayFitLaterReply {
  /**
   * True when the request would fit the balance and the key's limit once every hold of the account
   * (or of the key, where its limit is what refused it) has been settled, and something is held:
   * requests still running, or a credit lease. False: waiting cannot help.
   */
  mayFitLater: boolean;
}
