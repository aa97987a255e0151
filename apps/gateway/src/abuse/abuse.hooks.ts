import { Inject, Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER, retryAfterHeaders } from '@svc/headers';
import { Logger } from '@svc/logging';
import { AuthenticatedRequest } from '../auth/auth.decorators';
import { callerSecretHash } from '../auth/caller-secret';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { toErrorResponse } from '../http/error-response';
import { sendError } from '../http/send-error';
import { GATEWAY_LOGGER } from '../logger.token';
import { GatewayMetrics, NO_METRICS } from '../metrics/gateway-metrics';
import { AdmissionGate, GateVerdict } from '../rate-limit/admission-gate';
import { AbuseProtection, AbuseVerdict } from './abuse-protection';
import { ipIdentity, keyIdentity } from './caller-identity';

/** Every API route (not /healthz). */
const API_PATH = /^\/api\/v1(?:[/?]|$)/;
const MAX_MODEL_ID = 128;

interface RequestState {
  secretHash?: string;
  /** Answered by a block (or Redis down): not a failure of the caller's own. */
  answered: boolean;
  /** The check runs while the request travels to admission, which awaits it (AdmissionGate). */
  deferred: boolean;
}

/**
 * The abuse block around every API request: checked in `onRequest`, before authentication, so a
 * flood of missing or bad keys is refused without key lookups; failures counted in `onSend`,
 * before the failing answer leaves, so the block is in place when the caller sees the answer
 * that triggered it.
 *
 * The hot path (a key this replica saw authenticate, on a route whose requests reach admission)
 * does not wait for the check in `onRequest`: admission awaits it before any work starts (with
 * rate limits on, its own script reads the key's block, so the check has no round trip of its
 * own), and `onSend` turns an answer that never reached admission into the block's 429 when the
 * check says so. Same decision, fewer Redis round trips on the way to the model.
 *
 * What a request that was not refused teaches (its key works; its route reaches admission) is
 * learned in `onResponse`, which every answer passes: a streamed one takes the reply over from
 * Fastify and never passes `onSend`, and a client that only streams would otherwise pay the
 * check's own Redis round trip on every request and be refused by an address block.
 */
@Injectable()
export class AbuseHooks implements OnModuleInit {
  private readonly state = new WeakMap<FastifyRequest, RequestState>();
  /** `METHOD /route` of requests seen reaching admission: the inference routes. */
  private readonly admissionRoutes = new Set<string>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly protection: AbuseProtection,
    private readonly gate: AdmissionGate,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Optional() private readonly metrics: GatewayMetrics = NO_METRICS,
  ) {}

  onModuleInit(): void {
    if (!this.config.ABUSE_PROTECTION_ENABLED) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply) => this.before(request, reply));
    fastify.addHook('onSend', (request, reply, payload) => this.after(request as AuthenticatedRequest, reply, payload));
    fastify.addHook('onResponse', (request, _reply, done) => {
      this.learn(request as AuthenticatedRequest);
      done();
    });
  }

  async before(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (!API_PATH.test(request.url)) return undefined;
    const state: RequestState = { secretHash: callerSecretHash(request), answered: false, deferred: false };
    this.state.set(request, state);
    const hash = state.secretHash;
    if (hash && this.protection.isAuthenticated(hash) && this.admissionRoutes.has(routeOf(request))) {
      state.deferred = true;
      const run = () => this.protection.check(request.ip, hash).then((check) => this.verdict(check, state));
      // With rate limits on, admission's own Redis call reads the key's block: no round trip of its own.
      this.gate.defer(
        request.id,
        this.config.RATE_LIMITS_ENABLED
          ? {
              blockKey: this.protection.keyBlockKey(hash),
              decide: (liftAt) => this.keyVerdict(hash, liftAt, state),
              run,
              leasable: !this.protection.failedRecently(hash),
            }
          : run(),
      );
      return undefined;
    }
    const check = await this.protection.check(request.ip, state.secretHash);
    if (check.verdict === 'pass') return undefined;
    state.answered = true;
    if (check.verdict === 'unavailable') {
      const message = 'Requests without an API key are refused while rate limiting is degraded. Try again shortly.';
      sendError(this.logger, request, reply, new DomainError(ErrorCode.ServiceUnavailable, message, undefined, { retryAfterSeconds: 5 }));
      return reply;
    }
    const verdict = this.verdict(check, state) as NonNullable<GateVerdict>;
    reply.headers(verdict.headers);
    sendError(this.logger, request, reply, verdict.refusal);
    return reply;
  }

  private keyVerdict(secretHash: string, liftAt: number | null, state: RequestState): GateVerdict | undefined {
    const check = this.protection.keyVerdict(secretHash, liftAt);
    return check === undefined ? undefined : this.verdict(check, state);
  }

  /** The block's 429 (message and reset headers), or null to pass. */
  private verdict(check: AbuseVerdict, state: RequestState): GateVerdict {
    if (check.verdict !== 'blocked') return null;
    state.answered = true;
    this.metrics.refused('abuse_blocked');
    const waitMs = check.liftAt - Date.now();
    const message = `Too many failed attempts (over ${this.protection.maxFailures}) resulted in non-success status codes. Please wait ${this.protection.blockSeconds}s and try again.`;
    return {
      refusal: new DomainError(ErrorCode.RateLimited, message, undefined, { retryAfterSeconds: Math.max(0, waitMs) / 1000 }),
      headers: {
        [HEADER.rateLimitRemainingRequests]: '0',
        [HEADER.rateLimitResetRequests]: String(Math.ceil(check.liftAt / 1000)),
        [HEADER.rateLimitResetTokens]: String(Math.max(1, Math.ceil(waitMs / 1000))),
        ...retryAfterHeaders(waitMs),
        ...(check.identity.startsWith('key:') ? { [HEADER.rateLimitType]: 'api_key' } : {}),
      },
    };
  }

  async after(request: AuthenticatedRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const state = this.state.get(request);
    if (!state) return payload;
    if (state.deferred) {
      // The request ended before admission (e.g. a 400): its deferred check decides now.
      const verdict = await this.gate.takeUnawaited(request.id);
      if (verdict) {
        reply.code(429).headers(verdict.headers).header(HEADER.contentType, 'application/json; charset=utf-8');
        reply.removeHeader(HEADER.contentEncoding);
        return JSON.stringify(toErrorResponse(verdict.refusal, this.config.ERROR_STYLE).body);
      }
    }
    if (state.answered) return payload;
    const key = request.apiKey;
    // Only the caller's own failures count: the platform's 5xx (a service restarting) must not block a
    // retrying client, nor a 429 (docs/rate-limits.md: the limiter refuses those at the same cost as a block).
    if (reply.statusCode < 400 || reply.statusCode >= 500 || reply.statusCode === 429) return payload;
    if (key && state.secretHash) {
      await this.protection.failed(keyIdentity(state.secretHash), request.id, {
        accountId: key.accountId,
        apiKeyId: key.id,
        modelId: modelOf(request.body),
        apiTier: key.rateLimits?.apiTier ?? 'paid',
      });
    } else {
      await this.protection.failed(ipIdentity(request.ip), request.id);
    }
    return payload;
  }

  /** Once the answer has gone, plain or streamed: the route reached admission; the key (unless refused by a block) works. */
  private learn(request: AuthenticatedRequest): void {
    const state = this.state.get(request);
    if (!state) return;
    if (this.gate.takeReached(request.id)) this.admissionRoutes.add(routeOf(request));
    if (!state.answered && request.apiKey && state.secretHash) this.protection.authenticated(state.secretHash);
  }
}

const routeOf = (request: FastifyRequest): string => `${request.method} ${request.routeOptions.url ?? ''}`;

/** The model a failed request named, for the rate-limit log (never any other part of the body). */
function modelOf(body: unknown): string {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model.slice(0, MAX_MODEL_ID) : '';
}
