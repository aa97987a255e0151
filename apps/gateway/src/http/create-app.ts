import compress from '@fastify/compress';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { constants as zlib } from 'node:zlib';
import { HEADER, newRequestId, SERVICE_VERSION } from '@svc/headers';
import { Logger, PinoNestLogger } from '@svc/logging';
import { AppModule } from '../app.module';
import { GatewayConfig } from '../config';
import { ignoreUnknownExpectations } from './client-error';
import { capConnectionsPerAddress } from './connection-cap';
import { HttpErrorFilter } from './http-error.filter';
import { registerJsonBody } from './json-body';
import { registerMultipart } from './multipart';
import { serverOptions } from './server-options';

export const API_PREFIX = 'api/v1';

/** The Fastify-based Nest application with the spec's headers, error shapes and compression. */
export async function createGatewayApp(config: GatewayConfig, logger: Logger): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    genReqId: () => newRequestId(),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    ...serverOptions(config, logger),
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forConfig(config, logger), adapter, {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  capConnectionsPerAddress(fastify.server, config.MAX_CONNECTIONS_PER_IP, logger);
  ignoreUnknownExpectations(fastify.server);
  registerJsonBody(fastify);

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

  await registerMultipart(app, config.BODY_LIMIT_BYTES);

  app.setGlobalPrefix(API_PREFIX, { exclude: ['healthz'] });
  app.useGlobalFilters(new HttpErrorFilter(logger));
  app.enableShutdownHooks(['SIGINT', 'SIGTERM']);
  return app;
}
