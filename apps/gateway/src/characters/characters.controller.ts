import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Catalog } from '@svc/catalog';
import { CallerContext, CHARACTERS, CHARACTER_SLUG_PATTERN } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { paginationHeaders } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { AdminOnly, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { CATALOG } from '../models/models.tokens';
import { addReviewBody, createCharacterBody, listCharactersQuery, listReviewsQuery, reviewIdSchema } from './characters.dto';

/** A slug that cannot exist is simply not found (the reference answers 404 for unknown slugs). */
function checkSlug(slug: string): string {
  if (!CHARACTER_SLUG_PATTERN.test(slug)) throw new DomainError(ErrorCode.NotFound, `Character "${slug}" not found.`);
  return slug;
}

/** Review ids are UUIDs; anything else is not found. */
function checkReviewId(id: string): string {
  if (!reviewIdSchema.safeParse(id).success) throw new DomainError(ErrorCode.NotFound, `Review "${id}" not found.`);
  return id;
}

/**
 * Characters (personas) for `svc_parameters.character_slug`. Reading needs any key; writing an
 * ADMIN key, and the chat service lets an account change only what it owns (docs/chat.md, "Who may write").
 */
@Controller('characters')
export class CharactersController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  @Get()
  async list(@Query() query: unknown, @Caller() caller: CallerContext, @Res({ passthrough: true }) reply: FastifyReply) {
    const { modelId, ...q } = parseBody(listCharactersQuery, query ?? {});
    const { data, total } = await this.rpc.send(CHARACTERS.LIST, { ...q, ...(modelId ? { modelIds: modelId } : {}) }, { requestId: caller.requestId });
    reply.headers(paginationHeaders(q.limit, Math.floor(q.offset / q.limit) + 1, total));
    return { object: 'list', data };
  }

  @Get(':slug')
  async get(@Param('slug') slug: string, @Caller() caller: CallerContext) {
    const { data } = await this.rpc.send(CHARACTERS.GET, { slug: checkSlug(slug) }, { requestId: caller.requestId });
    return { object: 'character', data };
  }

  @Get(':slug/reviews')
  async reviews(@Param('slug') slug: string, @Query() query: unknown, @Caller() caller: CallerContext, @Res({ passthrough: true }) reply: FastifyReply) {
    const q = parseBody(listReviewsQuery, query ?? {});
    const { data, total, summary } = await this.rpc.send(
      CHARACTERS.LIST_REVIEWS,
      { slug: checkSlug(slug), ...q, accountId: caller.accountId },
      { requestId: caller.requestId },
    );
    reply.headers(paginationHeaders(q.pageSize, q.page, total));
    return { object: 'list', data, pagination: { page: q.page, pageSize: q.pageSize, total, totalPages: Math.ceil(total / q.pageSize) }, summary };
  }

  @AdminOnly()
  @Post()
  @HttpCode(200)
  async create(@Body() body: unknown, @Caller() caller: CallerContext) {
    const input = parseBody(createCharacterBody, body);
    const model = this.catalog.resolve(input.modelId, 'text');
    if (!model) {
      const message = `Model "${input.modelId}" does not exist or is not a text model.`;
      throw new DomainError(ErrorCode.Validation, message, { _errors: [], modelId: { _errors: [message] } });
    }
    const { data } = await this.rpc.send(CHARACTERS.CREATE, { ...input, modelId: model.id, accountId: caller.accountId }, { requestId: caller.requestId });
    return { object: 'character', data };
  }

  @AdminOnly()
  @Delete(':slug')
  async delete(@Param('slug') slug: string, @Caller() caller: CallerContext) {
    return this.rpc.send(CHARACTERS.DELETE, { slug: checkSlug(slug), accountId: caller.accountId }, { requestId: caller.requestId });
  }

  @AdminOnly()
  @Post(':slug/reviews')
  @HttpCode(200)
  async addReview(@Param('slug') slug: string, @Body() body: unknown, @Caller() caller: CallerContext) {
    const input = parseBody(addReviewBody, body);
    const { data } = await this.rpc.send(
      CHARACTERS.ADD_REVIEW,
      { slug: checkSlug(slug), ...input, accountId: caller.accountId },
      { requestId: caller.requestId },
    );
    return { data };
  }

  @AdminOnly()
  @Delete(':slug/reviews/:id')
  async deleteReview(@Param('slug') slug: string, @Param('id') id: string, @Caller() caller: CallerContext) {
    const request = { slug: checkSlug(slug), reviewId: checkReviewId(id), accountId: caller.accountId };
    return this.rpc.send(CHARACTERS.DELETE_REVIEW, request, { requestId: caller.requestId });
  }
}
