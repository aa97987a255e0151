import compress from '@fastify/compress';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { constants as zlib } from 'node:zlib';
import { newRequestId } from '@svc/headers';
import { Logger, PinoNestLogger } from '@svc/logging';
import { registerRequestSpans } from '@svc/tracing';
import { AppModule } from '../app.module';
import { registerConsole } from '../console/console.route';
import { GatewayConfig } from '../config';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { registerMetrics } from '../metrics/metrics.route';
import { BodyBudget } from '../http/body-budget';
import { registerBodyIntake } from '../http/body-intake';
import { ignoreUnknownExpectations } from '../http/client-error';
import { refuseWhileClosing } from '../http/closing';
import { registerErrorStyle } from '../http/error-style';
import { GatewayFastifyAdapter } from '../http/gateway-adapter';
import { capConnectionsPerAddress } from '../http/connection-cap';
import { registerCors } from '../http/cors';
import { HttpErrorFilter } from '../http/http-error.filter';
import { registerJsonBody } from '../http/json-body';
import { registerMultipart } from '../http/multipart';
import { registerResponseHeaders } from '../http/response-headers';
import { serverOptions } from '../http/server-options';

export const API_PREFIX = 'api/v1';

/**
 * The Fastify-based Nest application with the spec's headers, error shapes and compression.
 * Signals are main.ts's (graceful-shutdown.ts); tests close the app themselves.
 */
export async function createGatewayApp(config: GatewayConfig, logger: Logger): Promise<NestFastifyApplication> {
  const adapter = new GatewayFastifyAdapter({
    logger: false,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    genReqId: () => newRequestId(),
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    ...serverOptions(config, logger),
  } as ConstructorParameters<typeof GatewayFastifyAdapter>[0]);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forConfig(config, logger), adapter, {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  registerErrorStyle(fastify, config.ERROR_STYLE);
  capConnectionsPerAddress(fastify.server, config.MAX_CONNECTIONS_PER_IP, logger);
  ignoreUnknownExpectations(fastify.server);
  registerJsonBody(fastify, config.BODY_LIMIT_BYTES);
  registerMetrics(fastify, app.get(GatewayMetrics));
  registerRequestSpans(fastify);

  registerResponseHeaders(fastify, logger, config);
  registerCors(fastify, config.CORS_ALLOWED_ORIGINS);
  refuseWhileClosing(fastify, logger);
  // After the response headers (a refusal carries the request id), before any body is read.
  const budget = new BodyBudget(config.BODY_BUDGET_BYTES);
  app.get(GatewayMetrics).watchBodyBudget(budget);
  registerBodyIntake(fastify, { budget, limit: config.BODY_LIMIT_BYTES, metrics: app.get(GatewayMetrics) }, logger);
  await app.register(compress as never, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 5 },
    customTypes: /^(application\/(json|yaml)|text\/(plain|html|css|javascript))/,
  });

  await registerMultipart(app, config.BODY_LIMIT_BYTES);
  // After compression: the console's scripts and styles go out compressed too.
  registerConsole(fastify, logger);

  app.setGlobalPrefix(API_PREFIX, { exclude: ['healthz', 'livez', 'readyz'] });
  app.useGlobalFilters(new HttpErrorFilter(logger));
  return app;
}
