import { FastifyInstance, FastifyRequest } from 'fastify';
import { OriginList } from '@svc/config';
import { EXPOSED_HEADERS, HEADER } from '@svc/headers';

const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';
/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = '600';
/** Header names a preflight may ask for: tokens only, a bounded list (the OpenAI SDKs send about a dozen). */
const REQUESTED_HEADERS = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+){0,49}$/;

/**
 * CORS for browser clients, off unless CORS_ALLOWED_ORIGINS is set. With an allowed `Origin`:
 * a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 here, before
 * authentication and the abuse check; any other request gets the allow and expose headers before
 * anything else runs, so errors and streams carry them too. API keys travel in `Authorization`,
 * never in cookies, so credentials are never allowed and `*` is safe to send.
 */
export function registerCors(fastify: FastifyInstance, allowed: OriginList): void {
  if (allowed.kind === 'none') return;
  const expose = EXPOSED_HEADERS.join(', ');
  const allowOrigin = (request: FastifyRequest): string | undefined => {
    const origin = request.headers[HEADER.origin];
    if (typeof origin !== 'string') return undefined;
    if (allowed.kind === 'any') return '*';
    return allowed.origins.has(origin) ? origin : undefined;
  };
  fastify.addHook('onRequest', (request, reply, done) => {
    // The answer depends on Origin whenever a list is configured, allowed or not (caches must not mix them).
    if (allowed.kind === 'some') reply.header(HEADER.vary, HEADER.origin);
    const origin = allowOrigin(request);
    if (origin === undefined) return done();
    reply.header(HEADER.accessControlAllowOrigin, origin);
    if (request.method !== 'OPTIONS' || request.headers[HEADER.accessControlRequestMethod] === undefined) {
      reply.header(HEADER.accessControlExposeHeaders, expose);
      return done();
    }
    const asked = request.headers[HEADER.accessControlRequestHeaders];
    if (typeof asked === 'string' && REQUESTED_HEADERS.test(asked.trim())) reply.header(HEADER.accessControlAllowHeaders, asked.trim());
    reply.header(HEADER.accessControlAllowMethods, ALLOWED_METHODS).header(HEADER.accessControlMaxAge, PREFLIGHT_MAX_AGE_SECONDS).code(204).send();
  });
}
