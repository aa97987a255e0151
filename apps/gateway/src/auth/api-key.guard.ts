import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { hashApiKeySecret } from '@svc/auth';
import { ADMIN_REQUIRED_MESSAGE, DomainError, ErrorCode } from '@svc/errors';
import { Access, ACCESS, AuthenticatedRequest } from './auth.decorators';
import { bearerToken } from './bearer-token';
import { KeyCache } from './key-cache';
import { KeyUsageReporter } from './key-usage.reporter';

/** Bearer authentication on every route not marked @Public(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeyCache,
    private readonly usage: KeyUsageReporter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS, [context.getHandler(), context.getClass()]) ?? 'any-key';
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new DomainError(ErrorCode.Unauthorized, 'Missing API key. Send it as "Authorization: Bearer <key>".');
    const key = await this.keys.lookup(hashApiKeySecret(token), request.id);
    if (!key) throw new DomainError(ErrorCode.Unauthorized, 'Invalid API key.');
    if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) throw new DomainError(ErrorCode.Unauthorized, 'API key has expired.');
    if (access === 'admin' && key.apiKeyType !== 'ADMIN') throw new DomainError(ErrorCode.AdminRequired, ADMIN_REQUIRED_MESSAGE);
    request.apiKey = key;
    this.usage.used(key.id);
    return true;
  }
}
