import { BillingCurrency, Nano } from './money';
import { BilledModel } from './reserve';
import { BillableUsage, SettledUsage } from './usage';

/** What a service needs to settle a request admitted under a lease (there is no reservation row yet). */
export interface LeasedRequest {
  leaseId: string;
  /**
   * The key that made the request: its usage history and per-key usage (and the starting point of
   * a limit set later) count it. Send it: a lease of the account's unlimited keys has no key of its
   * own, and without this field the request is recorded without a key.
   */
  apiKeyId?: string;
  /** The lease's currency: the request is priced in it. */
  currency: BillingCurrency;
  /** This request's hold inside the lease: the most it may be charged. */
  heldNano: Nano;
  requestId: string;
  model: BilledModel;
  /** The model's `model_spec.pricing` at admission: settlement prices with it. */
  pricing: unknown;
  worstCase: BillableUsage;
}

/**
 * - `service`: the service that ran the request (exact counts). Final.
 * - `gateway`: the gateway's view. With usage null (nothing reached a service, or it failed
 *   before producing anything) the hold is released at once. With usage (a cut or broken
 *   stream) it is only a fallback: the service's settlement replaces it, and the sweeper
 *   applies it if none arrives within the grace period (the service died).
 */
export type SettleSource = 'service' | 'gateway';
export type SettleOutcome = 'completed' | 'cut' | 'failed';

export interface SettleRequest {
  reservationId: string;
  source: SettleSource;
  outcome: SettleOutcome;
  /** What was produced; null when nothing was (the hold is released, nothing is charged). */
  usage: SettledUsage | null;
  /** Time the inference took, for the usage history. */
  executionMs?: number;
  /** The request was admitted under a lease: what billing needs to create its settled reservation. */
  lease?: LeasedRequest;
}

/** `refunded`: a service had charged it, but the gateway answered the client with an error: charged nothing after all. */
export type SettleStatus = 'settled' | 'released' | 'refunded' | 'fallback-recorded' | 'already-final' | 'not-found';

export interface SettleReply {
  status: SettleStatus;
  currency: BillingCurrency | null;
  /** What this reservation finally cost (0 when released or still open). */
  chargedNano: Nano;
}
