import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from '@svc/logging';
import { sendError } from './send-error';

/** Every error leaving a controller, guard or pipe goes through here. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(this.logger, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception);
  }
}
