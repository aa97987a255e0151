import { Inject, Injectable } from '@nestjs/common';
import { Catalog } from '@svc/catalog';
import { CHARACTERS, CHARACTER_SLUG_PATTERN } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { paginationHeaders } from '@svc/headers';
import { RpcClient } from '@svc/messaging';
import { RouteCall } from '../http/route-call';
import { CATALOG } from '../models/models.tokens';
import { AddReviewBody, CreateCharacterBody, ListCharactersQuery, ListReviewsQuery, reviewIdSchema } from './characters.dto';

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
 * Characters (personas) for `svc_parameters.character_slug`, kept by the chat service: the lists
 * with their pagination headers, and writes in the caller's account (the chat service lets an
 * account change only what it owns: docs/chat.md, "Who may write").
 */
@Injectable()
export class CharactersPipeline {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  async list({ caller, reply }: RouteCall, query: ListCharactersQuery) {
    const { modelId, ...q } = query;
    const { data, total } = await this.rpc.send(CHARACTERS.LIST, { ...q, ...(modelId ? { modelIds: modelId } : {}) }, { requestId: caller.requestId });
    reply.headers(paginationHeaders(q.limit, Math.floor(q.offset / q.limit) + 1, total));
    return { object: 'list', data };
  }

  async get({ caller }: RouteCall, slug: string) {
    const { data } = await this.rpc.send(CHARACTERS.GET, { slug: checkSlug(slug) }, { requestId: caller.requestId });
    return { object: 'character', data };
  }

  async reviews({ caller, reply }: RouteCall, slug: string, q: ListReviewsQuery) {
    const { data, total, summary } = await this.rpc.send(
      CHARACTERS.LIST_REVIEWS,
      { slug: checkSlug(slug), ...q, accountId: caller.accountId },
      { requestId: caller.requestId },
    );
    reply.headers(paginationHeaders(q.pageSize, q.page, total));
    return { object: 'list', data, pagination: { page: q.page, pageSize: q.pageSize, total, totalPages: Math.ceil(total / q.pageSize) }, summary };
  }

  async create({ caller }: RouteCall, input: CreateCharacterBody) {
    const model = this.catalog.resolve(input.modelId, 'text');
    if (!model) {
      const message = `Model "${input.modelId}" does not exist or is not a text model.`;
      throw new DomainError(ErrorCode.Validation, message, { _errors: [], modelId: { _errors: [message] } });
    }
    const { data } = await this.rpc.send(CHARACTERS.CREATE, { ...input, modelId: model.id, accountId: caller.accountId }, { requestId: caller.requestId });
    return { object: 'character', data };
  }

  delete({ caller }: RouteCall, slug: string) {
    return this.rpc.send(CHARACTERS.DELETE, { slug: checkSlug(slug), accountId: caller.accountId }, { requestId: caller.requestId });
  }

  async addReview({ caller }: RouteCall, slug: string, input: AddReviewBody) {
    const { data } = await this.rpc.send(
      CHARACTERS.ADD_REVIEW,
      { slug: checkSlug(slug), ...input, accountId: caller.accountId },
      { requestId: caller.requestId },
    );
    return { data };
  }

  deleteReview({ caller }: RouteCall, slug: string, id: string) {
    const request = { slug: checkSlug(slug), reviewId: checkReviewId(id), accountId: caller.accountId };
    return this.rpc.send(CHARACTERS.DELETE_REVIEW, request, { requestId: caller.requestId });
  }
}
