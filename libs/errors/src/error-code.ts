/** Every failure the platform can report, independent of transport. */
export enum ErrorCode {
  Validation = 'VALIDATION',
  MalformedJson = 'MALFORMED_JSON',
  Unauthorized = 'UNAUTHORIZED',
  AdminRequired = 'ADMIN_REQUIRED',
  /** The balance or the key's consumption limit cannot cover the request's worst-case cost. */
  InsufficientCredits = 'INSUFFICIENT_CREDITS',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  ModelNotFound = 'MODEL_NOT_FOUND',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  /** The client did not send its whole request in time (slow or half-sent headers or body). */
  RequestTimeout = 'REQUEST_TIMEOUT',
  HeadersTooLarge = 'HEADERS_TOO_LARGE',
  /** A path parameter past the router's length limit. */
  UriTooLong = 'URI_TOO_LONG',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  Conflict = 'CONFLICT',
  /** An endpoint that is retired for good (410), e.g. the sunset GET /billing/usage. */
  Gone = 'GONE',
  RateLimited = 'RATE_LIMITED',
  Upstream = 'UPSTREAM_ERROR',
  ServiceUnavailable = 'SERVICE_UNAVAILABLE',
  Timeout = 'TIMEOUT',
  Internal = 'INTERNAL',
}
