import { ArgumentsHost, Catch, RpcExceptionFilter } from '@nestjs/common';
import { Observable, throwError } from 'rxjs';
import { ZodError } from 'zod';
import { DomainError, ErrorCode, errorMessage, ErrorPayload } from '@svc/errors';
import { Logger } from '@svc/logging';
import { NATS_HEADER } from '@svc/headers';
import { isUnavailableDependency } from './unavailable-dependency';

/**
 * What a handler failure leaves a service as, for every way a service answers (Nest handlers
 * through RpcErrorFilter, billing's plain hot-path subscriptions): domain errors as they are,
 * contract violations as 400s, a database or cache that cannot be reached as a 503 (retry, not
 * a bug), anything else a 500 that never leaks details (logged with its stack).
 */
export function errorPayloadOf(exception: unknown, logger: Logger, requestId: string | undefined): ErrorPayload {
  if (exception instanceof DomainError) return exception.toPayload();
  if (exception instanceof ZodError) return DomainError.validation(exception.issues).toPayload();
  if (isUnavailableDependency(exception)) {
    logger.warn({ requestId, err: errorMessage(exception) }, 'a dependency is unavailable');
    return { code: ErrorCode.ServiceUnavailable, message: 'A storage dependency of the service is unavailable. Try again shortly.' };
  }
  logger.error(
    { requestId, err: exception instanceof Error ? { name: exception.name, message: exception.message, stack: exception.stack } : String(exception) },
    'unhandled error',
  );
  return { code: ErrorCode.Internal, message: 'Internal server error' };
}

/** Every Nest handler failure leaves a service as an ErrorPayload (errorPayloadOf). */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    return throwError(() => errorPayloadOf(exception, this.logger, requestIdOf(host)));
  }
}

function requestIdOf(host: ArgumentsHost): string | undefined {
  const ctx = host.switchToRpc().getContext<{ getHeaders?: () => { get(k: string): string } | undefined }>();
  return ctx?.getHeaders?.()?.get(NATS_HEADER.requestId) || undefined;
}
