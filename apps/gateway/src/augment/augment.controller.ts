import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import Redis from 'ioredis';
import { BlobStore } from '@svc/blob-store';
import { AugmentToolName, Catalog } from '@svc/catalog';
import { AUGMENT, AugmentScrapeReply, AugmentSearchReply, CallerContext, RequestBilling } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS, RouteCall } from '../admission/admission.service';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { parseBody } from '../http/parse-body';
import { plainBody } from '../image/multipart-body';
import { CATALOG } from '../models/models.tokens';
import { REDIS } from '../redis/redis.module';
import { augmentScrapeSchema, augmentSearchSchema, TEXT_PARSER_MAX_BYTES, textParserSchema } from './augment-request.dto';

const UPLOAD_TTL_MS = 120_000;
/** Every tool is priced per call. */
const ONE_REQUEST = { kind: 'request', requests: 1 } as const;

/** Parts of a multipart upload that are not fields: the file's name and media type. */
interface FilePart {
  type?: string;
  filename?: string;
  mimetype?: string;
}

/**
 * Retrieval helpers for clients that do their own prompting: web search, scraping a page to
 * Markdown, and text out of a document. Served by the chat service; any API key may call them,
 * admitted like inference: the `augment` rate-limit class, and a hold of the tool's catalog price
 * per call (`augment` section), charged by the service when the call succeeds.
 */
@Controller('augment')
export class AugmentController {
  private readonly blobs: BlobStore;

  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS) redis: Redis,
  ) {
    this.blobs = new BlobStore(redis);
  }

  @Post('search')
  @HttpCode(200)
  search(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AugmentSearchReply> {
    const input = parseBody(augmentSearchSchema, body);
    return this.admitted('search', { caller, request, reply }, (billing) =>
      this.rpc.send(AUGMENT.SEARCH, { caller, billing, query: input.query, limit: input.limit }, this.callOptions(caller)),
    );
  }

  @Post('scrape')
  @HttpCode(200)
  scrape(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AugmentScrapeReply> {
    const input = parseBody(augmentScrapeSchema, body);
    return this.admitted('scrape', { caller, request, reply }, (billing) =>
      this.rpc.send(AUGMENT.SCRAPE, { caller, billing, url: input.url }, this.callOptions(caller)),
    );
  }

  @Post('text-parser')
  @HttpCode(200)
  async textParser(
    @Body() body: unknown,
    @Caller() caller: CallerContext,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    if (!request.isMultipart()) throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the document as multipart/form-data with a "file" field.');
    const part = fileRecord(body);
    const input = parseBody(textParserSchema, await plainBody(body));
    if (input.file.length > TEXT_PARSER_MAX_BYTES)
      throw new DomainError(ErrorCode.PayloadTooLarge, `The file is ${input.file.length} bytes; at most ${TEXT_PARSER_MAX_BYTES} are accepted.`);
    const file = await this.blobs.put(input.file, UPLOAD_TTL_MS);
    try {
      const result = await this.admitted('text-parser', { caller, request, reply }, (billing) =>
        this.rpc.send(AUGMENT.PARSE_TEXT, { caller, billing, file, filename: part?.filename, mediaType: part?.mimetype }, this.callOptions(caller)),
      );
      const text = result.text ?? (result.textBlob ? (await this.blobs.take(result.textBlob.blobId))?.toString('utf8') : undefined);
      if (text === undefined) throw new DomainError(ErrorCode.ServiceUnavailable, 'The parsed text expired before it could be returned; retry.');
      if (input.response_format === 'text') {
        reply.header(HEADER.contentType, 'text/plain; charset=utf-8');
        return text;
      }
      return { text, tokens: result.tokens };
    } finally {
      // Normally taken by the service already; gone at once if the call failed before.
      void this.blobs.delete(file.blobId).catch(() => undefined);
    }
  }

  /** Runs `call` under the tool's admission: 429 over its limits, 402 without credit for its price. */
  private admitted<T>(tool: AugmentToolName, { caller, request, reply }: RouteCall, call: (billing: RequestBilling | undefined) => Promise<T>): Promise<T> {
    const admission = { requestId: caller.requestId, key: request.apiKey!, model: this.catalog.augmentTool(tool), worstCase: ONE_REQUEST, ip: request.ip };
    return this.admission.run(admission, reply, async ({ billing }) => ({ result: await call(billing), usage: NO_TOKENS }));
  }

  private callOptions(caller: CallerContext) {
    return { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS };
  }
}

function fileRecord(body: unknown): FilePart | undefined {
  const raw = (body as Record<string, unknown> | null)?.file;
  const part = (Array.isArray(raw) ? raw[0] : raw) as FilePart | undefined;
  return part?.type === 'file' ? part : undefined;
}
