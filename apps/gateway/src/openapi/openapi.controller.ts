import { Controller, Get, Header, Inject, Param, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { stringify } from 'yaml';
import { Public } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { DOCS_ASSETS, DOCS_HTML, loadDocsAssets } from './docs-page';
import { buildOpenApiDocument } from './openapi-document';
import { ROUTE_DOCS } from './route-docs';

const CACHE = 'public, max-age=300';

/**
 * The API description, generated once per process (docs/openapi.md), and a page rendering it. Public: readable without an API key.
 */
@Controller()
export class OpenApiController {
  /** Built at boot (about 80 ms): a schema zod-openapi cannot render stops the gateway at start, not at a request. */
  private readonly json: string;
  /** Rendered at the first request for it (about 200 ms), then kept. */
  private yaml?: string;
  private readonly assets = loadDocsAssets();

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.json = JSON.stringify(buildOpenApiDocument(ROUTE_DOCS, config.ERROR_STYLE));
  }

  @Public()
  @Get('openapi.yaml')
  @Header(HEADER.contentType, 'application/yaml; charset=utf-8')
  @Header(HEADER.cacheControl, CACHE)
  yamlDocument(): string {
    return (this.yaml ??= stringify(JSON.parse(this.json), { aliasDuplicateObjects: false }));
  }

  @Public()
  @Get('openapi.json')
  @Header(HEADER.contentType, 'application/json; charset=utf-8')
  @Header(HEADER.cacheControl, CACHE)
  jsonDocument(): string {
    return this.json;
  }

  @Public()
  @Get('docs')
  @Header(HEADER.contentType, 'text/html; charset=utf-8')
  @Header(HEADER.cacheControl, CACHE)
  page(): string {
    return DOCS_HTML;
  }

  @Public()
  @Get('docs/:asset')
  asset(@Param('asset') name: string, @Res({ passthrough: true }) reply: FastifyReply): Buffer {
    if (!Object.hasOwn(DOCS_ASSETS, name)) throw new DomainError(ErrorCode.NotFound, `No docs asset "${name}".`);
    const asset = name as keyof typeof DOCS_ASSETS;
    reply.header(HEADER.contentType, DOCS_ASSETS[asset]).header(HEADER.cacheControl, CACHE);
    return this.assets[asset];
  }
}
