import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { AuthenticatedRequest, callerOf } from '../auth/auth.decorators';

/** What a route's pipeline has of its HTTP request: the caller, its key and address, the reply. */
export interface RouteCall {
  caller: CallerContext;
  request: AuthenticatedRequest;
  reply: FastifyReply;
}

/**
 * The route call of the current request, for the route's pipeline: `create(@Body() body: unknown,
 * @Call() call: RouteCall)`. The reply is Nest's passthrough reply (`@Res({ passthrough: true })`):
 * the pipeline sets headers or streams on it, and what the handler returns is the body.
 */
export const Call = createParamDecorator((_data: unknown, ctx: ExecutionContext): RouteCall => {
  const http = ctx.switchToHttp();
  const request = http.getRequest<AuthenticatedRequest>();
  return { caller: callerOf(request), request, reply: http.getResponse<FastifyReply>() };
});
