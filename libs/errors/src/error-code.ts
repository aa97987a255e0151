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
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  Conflict = 'CONFLICT',
  RateLimited = 'RATE_LIMITED',
  Upstream = 'UPSTREAM_ERROR',
  ServiceUnavailable = 'SERVICE_UNAVAILABLE',
  Timeout = 'TIMEOUT',
  Internal = 'INTERNAL',
}
