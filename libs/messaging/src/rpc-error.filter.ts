import { ArgumentsHost, Catch, RpcExceptionFilter } from '@nestjs/common';
import { Observable, throwError } from 'rxjs';
import { ZodError } from 'zod';
import { DomainError, ErrorCode, ErrorPayload } from '@svc/errors';
import { Logger } from '@svc/logging';
import { NATS_HEADER } from '@svc/headers';

/** Every handler failure leaves a service as an ErrorPayload; unknown errors never leak details. */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    return throwError(() => this.toPayload(exception, host));
  }

  private toPayload(exception: unknown, host: ArgumentsHost): ErrorPayload {
    if (exception instanceof DomainError) return exception.toPayload();
    if (exception instanceof ZodError) return DomainError.validation(exception.issues).toPayload();
    const requestId = requestIdOf(host);
    this.logger.error(
      { requestId, err: exception instanceof Error ? { name: exception.name, message: exception.message, stack: exception.stack } : String(exception) },
      'unhandled error',
    );
    return { code: ErrorCode.Internal, message: 'Internal server error' };
  }
}

function requestIdOf(host: ArgumentsHost): string | undefined {
  const ctx = host.switchToRpc().getContext<{ getHeaders?: () => { get(k: string): string } | undefined }>();
  return ctx?.getHeaders?.()?.get(NATS_HEADER.requestId) || undefined;
}
