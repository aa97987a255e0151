import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { AuthenticatedKey, CallerContext } from '@svc/contracts';

export const ACCESS = 'svc:access';
export type Access = 'public' | 'admin' | 'any-key';

/** Readable without an API key (discovery endpoints, health). */
export const Public = () => SetMetadata(ACCESS, 'public' satisfies Access);
/** Needs an ADMIN key; INFERENCE keys get 401 `Admin API key required`. */
export const AdminOnly = () => SetMetadata(ACCESS, 'admin' satisfies Access);

export interface AuthenticatedRequest extends FastifyRequest {
  apiKey?: AuthenticatedKey;
}

/** The authenticated caller of a request (a route without authentication has none: a programming error). */
export function callerOf(request: AuthenticatedRequest): CallerContext {
  const key = request.apiKey;
  if (!key) throw new Error('Caller used on a route without authentication');
  return { requestId: request.id, accountId: key.accountId, apiKeyId: key.id };
}

/** The authenticated caller of the current request. */
export const Caller = createParamDecorator((_data: unknown, ctx: ExecutionContext): CallerContext =>
  callerOf(ctx.switchToHttp().getRequest<AuthenticatedRequest>()),
);
