import { ErrorCode } from './error-code';

export function assertUnreachable(value: never): never {
  throw new Error(`Unhandled value: ${String(value)}`);
}

/** The one mapping from domain error codes to HTTP status codes. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.Validation:
    case ErrorCode.MalformedJson:
      return 400;
    case ErrorCode.Unauthorized:
    case ErrorCode.AdminRequired:
      return 401;
    case ErrorCode.InsufficientCredits:
      return 402;
    case ErrorCode.Forbidden:
      return 403;
    case ErrorCode.NotFound:
    case ErrorCode.ModelNotFound:
      return 404;
    case ErrorCode.RequestTimeout:
      return 408;
    case ErrorCode.Conflict:
      return 409;
    case ErrorCode.Gone:
      return 410;
    case ErrorCode.PayloadTooLarge:
      return 413;
    case ErrorCode.UriTooLong:
      return 414;
    case ErrorCode.UnsupportedMediaType:
      return 415;
    case ErrorCode.RateLimited:
      return 429;
    case ErrorCode.HeadersTooLarge:
      return 431;
    case ErrorCode.Internal:
      return 500;
    case ErrorCode.Upstream:
      return 502;
    case ErrorCode.ServiceUnavailable:
      return 503;
    case ErrorCode.Timeout:
      return 504;
    default:
      return assertUnreachable(code);
  }
}
