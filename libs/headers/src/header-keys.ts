/** Every header name the platform reads or writes. Lowercase, as sent on the wire. */
export const HEADER = {
  requestId: 'cf-ray',
  /** The same value as CF-RAY: what the OpenAI SDKs read as `request_id`. */
  requestIdAlias: 'x-request-id',
  /** Inbound W3C Trace Context: a caller's trace, logged alongside our request id, never echoed. */
  traceparent: 'traceparent',
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
  /** On every 429 and 503: whole seconds (at least 1), and the precise wait in ms (read first by the OpenAI SDKs). */
  retryAfter: 'retry-after',
  retryAfterMs: 'retry-after-ms',
  /** `false` on a 429 that no retry can cure (the OpenAI SDKs then give up at once). */
  shouldRetry: 'x-should-retry',
  /** Chat: how many times the model server was retried for this answer (connect errors, 502/503 before any byte); only when above 0. */
  retryCount: 'x-retry-count',
  /**
   * Chat at the margin of a key limit or a balance: the request's completion was capped to this
   * many tokens, what the credit left covers (docs/billing.md, "Exact at the margin").
   */
  completionCapped: 'x-svc-completion-capped',
  balanceDiem: 'x-svc-balance-diem',
  balanceUsd: 'x-svc-balance-usd',
  /** Wallet (Sign-In-With-X) callers: their available USD balance, on every response (docs/wallet.md). */
  balanceRemaining: 'x-balance-remaining',
  /** Sign-In-With-X: a wallet-signed payload instead of a bearer key; the legacy name is accepted too. */
  signInWithX: 'sign-in-with-x',
  signInWithXLegacy: 'x-sign-in-with-x',
  /** Image responses: safe mode blurred an output / a content violation was found. */
  isBlurred: 'x-svc-is-blurred',
  isContentViolation: 'x-svc-is-content-violation',
  /** Image responses: the `enhance_prompt` rewrite, URL-encoded. */
  enhancedPrompt: 'x-svc-enhanced-prompt',
  /** x402 top-ups (docs/wallet.md): the signed payment (canonical, then the legacy names), a 402's requirements, the settlement result. */
  paymentSignature: 'payment-signature',
  x402Payment: 'x-402-payment',
  xPayment: 'x-payment',
  paymentRequired: 'payment-required',
  paymentResponse: 'payment-response',
  /** Crypto JSON-RPC proxy (docs/wallet.md): credits charged and their USD cost; a replay's marker; the caller's retry key. */
  rpcCredits: 'x-svc-rpc-credits',
  rpcCostUsd: 'x-svc-rpc-cost-usd',
  idempotentReplayed: 'idempotent-replayed',
  idempotencyKey: 'idempotency-key',
  /** CSV usage history: the cursor of the next page. */
  nextCursor: 'x-next-cursor',
  contentDisposition: 'content-disposition',
  /** A retired endpoint's answer (RFC 9745 Deprecation, RFC 8594 Sunset, and the successor in Link). */
  deprecation: 'deprecation',
  sunset: 'sunset',
  link: 'link',
  /** CORS (docs/configuration.md, CORS_ALLOWED_ORIGINS). */
  origin: 'origin',
  vary: 'vary',
  accessControlRequestMethod: 'access-control-request-method',
  accessControlRequestHeaders: 'access-control-request-headers',
  accessControlAllowOrigin: 'access-control-allow-origin',
  accessControlAllowMethods: 'access-control-allow-methods',
  accessControlAllowHeaders: 'access-control-allow-headers',
  accessControlExposeHeaders: 'access-control-expose-headers',
  accessControlMaxAge: 'access-control-max-age',
  authorization: 'authorization',
  contentType: 'content-type',
  contentEncoding: 'content-encoding',
  /** Request bodies: what the gateway's body budget holds before reading (apps/gateway/src/http/body-intake.ts). */
  contentLength: 'content-length',
  transferEncoding: 'transfer-encoding',
  connection: 'connection',
  /** `100-continue`: the gateway invites the body only once it is admitted. */
  expect: 'expect',
  acceptEncoding: 'accept-encoding',
  cacheControl: 'cache-control',
  /** The admin console's static files (apps/gateway/src/console). */
  contentSecurityPolicy: 'content-security-policy',
  contentTypeOptions: 'x-content-type-options',
  referrerPolicy: 'referrer-policy',
  etag: 'etag',
  ifNoneMatch: 'if-none-match',
  date: 'date',
} as const;

/** Headers carried on NATS messages between the gateway and the services. */
export const NATS_HEADER = {
  requestId: 'svc-request-id',
  frame: 'svc-frame',
  seq: 'svc-seq',
  /** On a stream frame: the chunks it holds, newline-separated, numbered from its `svc-seq` (absent: one). */
  count: 'svc-count',
  /** On a request: send heartbeats to this subject every `heartbeatMs` while working on it. */
  heartbeatTo: 'svc-heartbeat-to',
  heartbeatMs: 'svc-heartbeat-ms',
} as const;

export type HeaderName = (typeof HEADER)[keyof typeof HEADER];
