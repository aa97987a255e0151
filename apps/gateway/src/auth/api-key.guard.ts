import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ADMIN_REQUIRED_MESSAGE, DomainError, ErrorCode } from '@svc/errors';
import { Access, ACCESS, AuthenticatedRequest } from './auth.decorators';
import { bearerSecretHash } from './bearer-token';
import { KeyCache } from './key-cache';
import { KeyUsageReporter } from './key-usage.reporter';
import { SiwxAuthenticator } from './siwx-authenticator';
import { siwxHeader } from './siwx-header';

/** Bearer (or Sign-In-With-X wallet) authentication on every route not marked @Public(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeyCache,
    private readonly usage: KeyUsageReporter,
    private readonly siwx: SiwxAuthenticator,
  ) {}

  /** Per controller class and handler: their metadata does not change after boot. */
  private readonly accessOf = new WeakMap<object, WeakMap<object, Access>>();

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.access(context);
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const secretHash = bearerSecretHash(request);
    const wallet = secretHash ? undefined : siwxHeader(request);
    if (wallet !== undefined) {
      // A wallet acts with an INFERENCE key: refused before its nonce is spent.
      if (access === 'admin') throw new DomainError(ErrorCode.AdminRequired, ADMIN_REQUIRED_MESSAGE);
      request.apiKey = await this.siwx.authenticate(wallet, request.id);
      return true;
    }
    if (!secretHash) throw new DomainError(ErrorCode.Unauthorized, 'Missing API key. Send it as "Authorization: Bearer <key>".');
    const key = await this.keys.lookup(secretHash, request.id);
    if (!key) throw new DomainError(ErrorCode.Unauthorized, 'Invalid API key.');
    if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) throw new DomainError(ErrorCode.Unauthorized, 'API key has expired.');
    if (access === 'admin' && key.apiKeyType !== 'ADMIN') throw new DomainError(ErrorCode.AdminRequired, ADMIN_REQUIRED_MESSAGE);
    request.apiKey = key;
    this.usage.used(key.id);
    return true;
  }

  private access(context: ExecutionContext): Access {
    const [cls, handler] = [context.getClass(), context.getHandler()];
    let byHandler = this.accessOf.get(cls);
    if (!byHandler) this.accessOf.set(cls, (byHandler = new WeakMap()));
    let access = byHandler.get(handler);
    if (access === undefined) {
      access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS, [handler, cls]) ?? 'any-key';
      byHandler.set(handler, access);
    }
    return access;
  }
}
