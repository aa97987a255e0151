import { FastifyRequest } from 'fastify';
import { AugmentTool, ModelDefinition } from '@svc/catalog';
import { AuthenticatedKey, BillableUsage, RateLimitClass, RequestBilling } from '@svc/contracts';

/** Tokens a request is counted for in token-per-minute limits (text prompt + output, embedding input). */
export function limitTokensOf(usage: BillableUsage): number {
  if (usage.kind === 'text') return usage.promptTokens + usage.completionTokens;
  if (usage.kind === 'embedding') return usage.inputTokens;
  return 0;
}

/** A route limited apart from its model's inference, in counters of its own (polling a video job: `video-retrieve`). */
export interface LimitOverride {
  limitClass?: RateLimitClass;
}

/** What admission prices and limits: a catalog model, or an `/augment/*` tool (priced per call). */
export type AdmittedModel = (Pick<ModelDefinition, 'id' | 'name' | 'type' | 'rateLimitTier' | 'pricing'> | AugmentTool) & LimitOverride;

export interface AdmissionRequest {
  requestId: string;
  key: AuthenticatedKey;
  model: AdmittedModel;
  /**
   * The most the request may consume, known before any model runs, in its model's pricing units:
   * billing holds its price, token limits count its tokens.
   */
  worstCase: BillableUsage;
  /** Client address (after TRUST_PROXY), for limits on callers without a valid key. */
  ip: string;
  /**
   * Hold the credit in a reservation of its own, never under this replica's credit lease: for
   * queued jobs, which may settle long after any lease has closed (docs/billing.md, "Leases").
   */
  ownReservation?: boolean;
  /**
   * The id of that reservation, chosen by the caller so a retried run replays it instead of holding
   * twice (batch lines: a hash of the batch and the line's custom_id). Implies `ownReservation`.
   */
  reservationId?: string;
  /**
   * A tighter worst case, asked only when `worstCase` does not fit the credit left (a chat prompt
   * counted in tokens by its engine instead of bounded by its bytes); null when it cannot be
   * known. The request is then admitted on it, or refused for it (docs/billing.md, "Exact at the margin").
   */
  exactWorstCase?: () => Promise<BillableUsage | null>;
  /** Added to a 402's message: what the worst case was priced with, and what would need less credit. */
  refusalHint?: string;
  /**
   * A chat request's completion cap and its worst case at a smaller cap: refused at the margin for
   * good, it is admitted with the completion capped to what the credit left covers (halving, never
   * under MIN_CAPPED_COMPLETION tokens) rather than refused.
   */
  shrink?: { cap: number; worstCaseFor(cap: number): BillableUsage };
}

/**
 * Actual usage once known. `cut` when the client went away mid-stream (counts are what was sent).
 * Requests that are not text report their tokens for limits (embeddings: input tokens as
 * `promptTokens`) or zeros; the service that ran them settles billing with exact units.
 */
export interface UsageReport {
  promptTokens: number;
  completionTokens: number;
  cut?: boolean;
}

/** The public API's `cost: {usd, diem}` of a chat response. */
export interface ResponseCost {
  usd: number;
  diem: number;
}

export interface AdmissionTicket {
  /** Response headers this stage contributes (rate-limit counters, balances). */
  headers: Record<string, string>;
  /** The billing stage's: what the service that runs the request needs to settle it. */
  billing?: RequestBilling;
  /** The billing stage's: what these tokens cost at the prices the request was admitted at. */
  costOf?(usage: { promptTokens: number; completionTokens: number }): ResponseCost;
  /** The completion cap the request was admitted with, when it is below the one it asked for (`shrink`). */
  completionCap?: number;
  /** Called exactly once: actual usage, or null when the request produced nothing. */
  settle(usage: UsageReport | null): Promise<void>;
}

/**
 * One check an inference request passes before work starts (rate limits, credit reservation).
 * `admit` throws a DomainError to refuse (429, 402, ...).
 */
export interface AdmissionStage {
  readonly name: string;
  admit(request: AdmissionRequest): Promise<AdmissionTicket>;
}

export const ADMISSION_STAGES = Symbol('ADMISSION_STAGES');

/**
 * Turns a refusal into a richer answer for some callers (x402's 402 for a wallet short of credit);
 * optional, provided by admission.module.ts. Returns what to throw: the refusal itself by default.
 */
export abstract class AdmissionRefusals {
  abstract explain(err: unknown, request: AdmissionRequest, http: FastifyRequest): Promise<unknown>;
}
