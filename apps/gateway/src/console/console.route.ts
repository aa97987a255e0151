import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Logger } from '@svc/logging';
import { sendError } from '../http/send-error';
import { CONSOLE_CSP } from './console-csp';
import { ConsoleFile, loadConsoleFiles } from './console-files';

/** Where `npm run build` writes the console (apps/console/vite.config.mts). */
export const CONSOLE_DIST = path.join(REPO_ROOT, 'dist/console');
export const CONSOLE_PATH = '/console';

export const NOT_BUILT_MESSAGE =
  'The admin console is not built on this server. Run `npm run build` (it builds apps/console into dist/console) and restart the gateway.';

/**
 * The admin console (apps/console) at /console, same origin as the API: its built files from
 * memory, hashed assets cached for a year, index.html revalidated by ETag, a strict CSP. Outside
 * /api/v1 and without a key (the page holds no data; it calls the API with the key the user
 * types). Registered on Fastify directly: no Nest guard, pipe or interceptor runs for it.
 */
export function registerConsole(fastify: FastifyInstance, logger: Logger, dir = CONSOLE_DIST): void {
  const files = loadConsoleFiles(dir);
  if (!files) logger.warn({ dir }, 'admin console not built: /console answers 404');
  const serve = (name: string, request: FastifyRequest, reply: FastifyReply) => {
    if (!files) return sendError(logger, request, reply, new DomainError(ErrorCode.NotFound, NOT_BUILT_MESSAGE));
    const file = files.get(name);
    if (!file) return sendError(logger, request, reply, new DomainError(ErrorCode.NotFound, `The console has no file "${name}".`));
    send(file, request, reply);
  };
  // ignoreTrailingSlash: /console and /console/ are one route.
  fastify.get(CONSOLE_PATH, (request, reply) => serve('index.html', request, reply));
  fastify.get(`${CONSOLE_PATH}/*`, (request, reply) => serve((request.params as { '*': string })['*'] || 'index.html', request, reply));
}

function send(file: ConsoleFile, request: FastifyRequest, reply: FastifyReply): void {
  reply
    .header(HEADER.cacheControl, file.cacheControl)
    .header(HEADER.etag, file.etag)
    .header(HEADER.contentSecurityPolicy, CONSOLE_CSP)
    .header(HEADER.contentTypeOptions, 'nosniff')
    .header(HEADER.referrerPolicy, 'no-referrer');
  if (request.headers[HEADER.ifNoneMatch] === file.etag) {
    void reply.code(304).send();
    return;
  }
  void reply.header(HEADER.contentType, file.contentType).send(file.body);
}
