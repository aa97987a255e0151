import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AddCharacterReviewReply,
  AddCharacterReviewRequest,
  CreateCharacterReply,
  CreateCharacterRequest,
  GetCharacterReply,
  ListCharacterReviewsReply,
  ListCharacterReviewsRequest,
  ListCharactersReply,
  ListCharactersRequest,
} from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { averageRating, toCharacterView, toReviewView } from './character.mapper';
import { CharacterRecord } from './character.record';
import { CHARACTERS_REPOSITORY, CharactersRepository } from './characters.repository';

/** The author of characters the service ships (seeds) and of ones created without an account. */
export const SVC_AUTHOR = 'svc';

/** A short, stable, anonymised author id derived from the creating account. */
export const authorOf = (accountId: string | undefined): string =>
  accountId
    ? BigInt(`0x${createHash('sha256').update(accountId).digest('hex').slice(0, 12)}`)
        .toString(36)
        .slice(0, 5)
    : SVC_AUTHOR;

const notFound = (slug: string) => new DomainError(ErrorCode.NotFound, `Character "${slug}" not found.`);

@Injectable()
export class CharactersService {
  constructor(@Inject(CHARACTERS_REPOSITORY) private readonly repository: CharactersRepository) {}

  async list(query: ListCharactersRequest): Promise<ListCharactersReply> {
    const { rows, total } = await this.repository.list(query);
    return { data: rows.map(toCharacterView), total };
  }

  async get(slug: string): Promise<GetCharacterReply> {
    const character = await this.record(slug);
    return { data: toCharacterView(character), personaBytes: Buffer.byteLength(character.systemPrompt, 'utf8') };
  }

  /** The persona a chat request applies; null when the slug is unknown. */
  async persona(slug: string): Promise<{ systemPrompt: string; modelId: string } | null> {
    const character = await this.repository.findBySlug(slug);
    return character && { systemPrompt: character.systemPrompt, modelId: character.modelId };
  }

  async reviews({ slug, page, pageSize }: ListCharacterReviewsRequest): Promise<ListCharacterReviewsReply> {
    const character = await this.record(slug);
    const { rows, total } = await this.repository.listReviews(character.id, page, pageSize);
    return {
      data: rows.map(toReviewView),
      total,
      summary: { averageRating: averageRating(character.ratingSum, character.ratingCount), totalReviews: character.ratingCount },
    };
  }

  async create({ accountId, ...input }: CreateCharacterRequest): Promise<CreateCharacterReply> {
    return { data: toCharacterView(await this.repository.upsert(input, authorOf(accountId))) };
  }

  async delete(slug: string): Promise<{ deleted: boolean }> {
    if (!(await this.repository.delete(slug))) throw notFound(slug);
    return { deleted: true };
  }

  async addReview({ slug, ...review }: AddCharacterReviewRequest): Promise<AddCharacterReviewReply> {
    const character = await this.record(slug);
    return { data: toReviewView(await this.repository.addReview(character.id, review)) };
  }

  private async record(slug: string): Promise<CharacterRecord> {
    const character = await this.repository.findBySlug(slug);
    if (!character) throw notFound(slug);
    return character;
  }
}
