/** Every header name the platform reads or writes. Lowercase, as sent on the wire. */
export const HEADER = {
  requestId: 'cf-ray',
  version: 'x-svc-version',
  timestamp: 'x-svc-timestamp',
  hostName: 'x-svc-host-name',
  modelId: 'x-svc-model-id',
  modelName: 'x-svc-model-name',
  modelRouter: 'x-svc-model-router',
  modelDeprecationWarning: 'x-svc-model-deprecation-warning',
  modelDeprecationDate: 'x-svc-model-deprecation-date',
  rateLimitLimitRequests: 'x-ratelimit-limit-requests',
  rateLimitRemainingRequests: 'x-ratelimit-remaining-requests',
  rateLimitResetRequests: 'x-ratelimit-reset-requests',
  rateLimitLimitTokens: 'x-ratelimit-limit-tokens',
  rateLimitRemainingTokens: 'x-ratelimit-remaining-tokens',
  rateLimitResetTokens: 'x-ratelimit-reset-tokens',
  rateLimitType: 'x-ratelimit-type',
  paginationLimit: 'x-pagination-limit',
  paginationPage: 'x-pagination-page',
  paginationTotal: 'x-pagination-total',
  paginationTotalPages: 'x-pagination-total-pages',
  balanceDiem: 'x-svc-balance-diem',
  balanceUsd: 'x-svc-balance-usd',
  /** Image responses: safe mode blurred an output / a content violation was found. */
  isBlurred: 'x-svc-is-blurred',
  isContentViolation: 'x-svc-is-content-violation',
  /** Image responses: the `enhance_prompt` rewrite, URL-encoded. */
  enhancedPrompt: 'x-svc-enhanced-prompt',
  authorization: 'authorization',
  contentType: 'content-type',
  contentEncoding: 'content-encoding',
  acceptEncoding: 'accept-encoding',
  cacheControl: 'cache-control',
  date: 'date',
} as const;

/** Headers carried on NATS messages between the gateway and the services. */
export const NATS_HEADER = {
  requestId: 'svc-request-id',
  frame: 'svc-frame',
  seq: 'svc-seq',
  /** On a request: send heartbeats to this subject every `heartbeatMs` while working on it. */
  heartbeatTo: 'svc-heartbeat-to',
  heartbeatMs: 'svc-heartbeat-ms',
} as const;

export type HeaderName = (typeof HEADER)[keyof typeof HEADER];
