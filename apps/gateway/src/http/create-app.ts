import compress from '@fastify/compress';
import multipart from '@fastify/multipart';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { constants as zlib } from 'node:zlib';
import { HEADER, newRequestId, SERVICE_VERSION } from '@svc/headers';
import { Logger, PinoNestLogger } from '@svc/logging';
import { AppModule } from '../app.module';
import { GatewayConfig } from '../config';
import { HttpErrorFilter } from './http-error.filter';

export const API_PREFIX = 'api/v1';
/** Largest uploaded file; above it the request fails with 413. */
export const MULTIPART_FILE_LIMIT_BYTES = 32 * 1024 * 1024;

/** The Fastify-based Nest application with the spec's headers, error shapes and compression. */
export async function createGatewayApp(config: GatewayConfig, logger: Logger): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    genReqId: () => newRequestId(),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forConfig(config, logger), adapter, {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();

  // An empty body with a JSON content type (e.g. DELETE from some clients) is no body, not an error.
  const parseJson = fastify.getDefaultJsonParser('error', 'ignore');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    void parseJson(request, body as string, done);
  });

  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(HEADER.requestId, request.id);
    reply.header(HEADER.version, SERVICE_VERSION);
    done();
  });
  // One line per request at info (ids, route, status and time only); no hook at all at warn and above.
  if (logger.isLevelEnabled('info')) {
    fastify.addHook('onResponse', (request, reply, done) => {
      logger.info(
        {
          requestId: request.id,
          method: request.method,
          path: request.routeOptions.url ?? 'unmatched',
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request',
      );
      done();
    });
  }
  await app.register(compress as never, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 5 },
    customTypes: /^(application\/json|text\/plain)/,
  });

  // multipart/form-data uploads (image edit/upscale, audio), registered once for every route:
  // parts are buffered and attached to the body (fields as {value}, files as {filename, mimetype, toBuffer()}).
  // Endpoints apply their own, smaller size rules; MULTIPART_FILE_LIMIT_BYTES only stops what nothing accepts.
  await app.register(multipart as never, {
    attachFieldsToBody: true,
    limits: { fileSize: MULTIPART_FILE_LIMIT_BYTES, files: 4, fields: 64, fieldSize: config.BODY_LIMIT_BYTES, parts: 80 },
  });

  app.setGlobalPrefix(API_PREFIX, { exclude: ['healthz'] });
  app.useGlobalFilters(new HttpErrorFilter(logger));
  app.enableShutdownHooks(['SIGINT', 'SIGTERM']);
  return app;
}
