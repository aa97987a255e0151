import { ModelDefinition } from '@svc/catalog';
import { AuthenticatedKey } from '@svc/contracts';

/** What an inference request may consume at most, known before any model runs. */
export interface UsageEstimate {
  promptTokens: number;
  maxCompletionTokens: number;
}

export interface AdmissionRequest {
  requestId: string;
  key: AuthenticatedKey;
  model: ModelDefinition;
  estimate: UsageEstimate;
  /** Client address (after TRUST_PROXY), for limits on callers without a valid key. */
  ip: string;
}

/** Actual usage once known. `cut` when the client went away mid-stream (counts are what was sent). */
export interface UsageReport {
  promptTokens: number;
  completionTokens: number;
  cut?: boolean;
}

export interface AdmissionTicket {
  /** Response headers this stage contributes (rate-limit counters, balances). */
  headers: Record<string, string>;
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
