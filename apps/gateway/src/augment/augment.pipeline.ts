import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { BlobStore, unpackInlineOrBlob } from '@svc/blob-store';
import { AugmentToolName, Catalog } from '@svc/catalog';
import { AUGMENT, AugmentScrapeReply, AugmentSearchReply, CallerContext, RequestBilling } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { AdmissionService, NO_TOKENS } from '../admission/admission.service';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { REDIS } from '../redis/redis.module';
import { AugmentScrapeDto, AugmentSearchDto, FilePart, TEXT_PARSER_MAX_BYTES, TextParserDto } from './augment-request.dto';

const UPLOAD_TTL_MS = 120_000;
/** Every tool is priced per call. */
const ONE_REQUEST = { kind: 'request', requests: 1 } as const;

/**
 * Retrieval helpers for clients that do their own prompting: web search, scraping a page to
 * Markdown, and text out of a document. Served by the chat service; any API key may call them,
 * admitted like inference: the `augment` rate-limit class, and a hold of the tool's catalog price
 * per call (`augment` section), charged by the service when the call succeeds.
 */
@Injectable()
export class AugmentPipeline {
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

  search(call: RouteCall, input: AugmentSearchDto): Promise<AugmentSearchReply> {
    const { caller } = call;
    return this.admitted('search', call, (billing) =>
      this.rpc.send(AUGMENT.SEARCH, { caller, billing, query: input.query, limit: input.limit }, this.callOptions(caller)),
    );
  }

  scrape(call: RouteCall, input: AugmentScrapeDto): Promise<AugmentScrapeReply> {
    const { caller } = call;
    return this.admitted('scrape', call, (billing) => this.rpc.send(AUGMENT.SCRAPE, { caller, billing, url: input.url }, this.callOptions(caller)));
  }

  /** `part`: the upload's file name and media type, when the form gave them. */
  async parseText(call: RouteCall, input: TextParserDto, part: FilePart | undefined): Promise<unknown> {
    const { caller, reply } = call;
    if (input.file.length > TEXT_PARSER_MAX_BYTES)
      throw new DomainError(ErrorCode.PayloadTooLarge, `The file is ${input.file.length} bytes; at most ${TEXT_PARSER_MAX_BYTES} are accepted.`);
    const file = await this.blobs.put(input.file, UPLOAD_TTL_MS);
    try {
      const result = await this.admitted('text-parser', call, (billing) =>
        this.rpc.send(AUGMENT.PARSE_TEXT, { caller, billing, file, filename: part?.filename, mediaType: part?.mimetype }, this.callOptions(caller)),
      );
      const missing = () => new DomainError(ErrorCode.ServiceUnavailable, 'The parsed text expired before it could be returned; retry.');
      const text = (await unpackInlineOrBlob(this.blobs, result.text, { missing })).toString('utf8');
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

  /** Runs `send` under the tool's admission: 429 over its limits, 402 without credit for its price. */
  private admitted<T>(tool: AugmentToolName, { caller, request, reply }: RouteCall, send: (billing: RequestBilling | undefined) => Promise<T>): Promise<T> {
    const admission = { requestId: caller.requestId, key: request.apiKey!, model: this.catalog.augmentTool(tool), worstCase: ONE_REQUEST, ip: request.ip };
    return this.admission.run(admission, reply, async ({ billing }) => ({ result: await send(billing), usage: NO_TOKENS }));
  }

  private callOptions(caller: CallerContext) {
    return { requestId: caller.requestId, timeoutMs: this.config.INFERENCE_TIMEOUT_MS };
  }
}
