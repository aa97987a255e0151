import { ErrorStyle } from '@svc/errors';
import { SERVICE_VERSION } from '@svc/headers';
import { createDocument, ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { errorResponse, errorStatuses, successResponse } from './openapi-responses';
import { ROUTE_DOCS, RouteAccess, RouteDoc } from './route-docs';

type OpenApiDocument = ReturnType<typeof createDocument>;

const SECURITY_SCHEME = 'apiKey';
/** Sign-In-With-X: a wallet's signed message instead of a key, on every route an INFERENCE key may call (docs/wallet.md). */
const WALLET_SCHEME = 'siwx';
const securityOf = (access: RouteAccess): Array<Record<string, string[]>> =>
  access === 'public' ? [] : access === 'admin' ? [{ [SECURITY_SCHEME]: [] }] : [{ [SECURITY_SCHEME]: [] }, { [WALLET_SCHEME]: [] }];

/** Probes served at the root, not below /api/v1 (create-app.ts). */
const OUTSIDE_PREFIX = ['/healthz', '/livez', '/readyz'];

/** `/characters/:slug` -> `/characters/{slug}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function operation(doc: RouteDoc, method: string, path: string, style: ErrorStyle): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = { [String(doc.status ?? 200)]: successResponse(doc, style) };
  for (const status of errorStatuses(doc)) responses[String(status)] = errorResponse(status, [], doc.billed === true && doc.access === 'key', style);
  const requestBody = doc.body && {
    required: true,
    content: Object.fromEntries((doc.bodyTypes ?? ['application/json']).map((type) => [type, { schema: doc.body }])),
  };
  return {
    operationId: `${method}${path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: doc.summary,
    tags: [path.split('/')[1] ?? ''],
    security: securityOf(doc.access),
    ...(doc.access === 'admin' ? { description: 'Needs an ADMIN API key.' } : {}),
    ...(doc.query || doc.path || doc.requestHeaders
      ? {
          requestParams: {
            ...(doc.query && { query: doc.query }),
            ...(doc.path && { path: doc.path }),
            ...(doc.requestHeaders && { header: doc.requestHeaders }),
          },
        }
      : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the gateway, built from ROUTE_DOCS: the request schemas are the
 * zod schemas the handlers parse with, the error bodies libs/errors', the headers libs/headers'.
 * `info.version` is the service revision (SVC_VERSION, else boot time), a date-time string.
 * The error bodies are those of the gateway's ERROR_STYLE.
 */
export function buildOpenApiDocument(routes: Record<string, RouteDoc> = ROUTE_DOCS, errorStyle: ErrorStyle = 'standard'): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const [route, doc] of Object.entries(routes)) {
    const [method, path] = route.split(' ') as [string, string];
    const item = (paths[openApiPath(path)] ??= {});
    if (OUTSIDE_PREFIX.includes(path)) item.servers = [{ url: '/' }];
    (item as Record<string, ZodOpenApiOperationObject>)[method.toLowerCase()] = operation(doc, method.toLowerCase(), path, errorStyle);
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'svc-platform API',
        version: SERVICE_VERSION,
        description: 'Generated at boot from the zod schemas the gateway validates requests with (docs/openapi.md).',
      },
      servers: [{ url: '/api/v1' }],
      security: [{ [SECURITY_SCHEME]: [] }],
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`' },
          [WALLET_SCHEME]: {
            type: 'apiKey',
            in: 'header',
            name: 'SIGN-IN-WITH-X',
            description: 'A wallet-signed message (EIP-4361 or Sign-In-With-Solana), base64 JSON, a fresh nonce per request (docs/wallet.md)',
          },
        },
      },
      paths,
    },
    {
      // Uploaded files arrive as Buffers (multipart file fields).
      override: ({ zodSchema, jsonSchema }) => {
        if (zodSchema._zod.def.type === 'custom') Object.assign(jsonSchema, { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' });
      },
    },
  );
}
