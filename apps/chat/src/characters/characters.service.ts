import { Inject, Injectable } from '@nestjs/common';
import {
  AddCharacterReviewReply,
  CharacterInput,
  CharacterReviewInput,
  CreateCharacterReply,
  DeleteCharacterReviewReply,
  GetCharacterReply,
  ListCharacterReviewsReply,
  ListCharacterReviewsRequest,
  ListCharactersReply,
  ListCharactersRequest,
} from '@svc/contracts';
import { characterNotFound, featuredByOperatorOnly, notYourCharacter, notYourReview, reviewNotFound, slugTaken } from './character.errors';
import { averageRating, toCharacterView, toReviewView } from './character.mapper';
import { authorOf, CharacterOwner, OPERATOR } from './character-owner';
import { CharacterRecord } from './character.record';
import { CHARACTERS_REPOSITORY, CharactersRepository } from './characters.repository';

/**
 * Characters are public (every key reads them and may use them in chat) and owned by their
 * writer: only the owning account changes or deletes one, the operator's (owner null) only
 * through the characters CLI. docs/chat.md, "Who may write".
 */
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

  /** `reader`: the account asking (its own reviews are `isOwner`). */
  async reviews({ slug, page, pageSize, accountId: reader }: ListCharacterReviewsRequest): Promise<ListCharacterReviewsReply> {
    const character = await this.record(slug);
    const { rows, total } = await this.repository.listReviews(character.id, page, pageSize);
    return {
      data: rows.map((r) => toReviewView(r, reader)),
      total,
      summary: { averageRating: averageRating(character.ratingSum, character.ratingCount), totalReviews: character.ratingCount },
    };
  }

  /** Creates the character owned by `owner`, or replaces `owner`'s own character of that slug (409 for another owner's). */
  async create(input: CharacterInput, owner: CharacterOwner): Promise<CreateCharacterReply> {
    if (owner !== OPERATOR && input.featured) throw featuredByOperatorOnly();
    const saved = await this.repository.save(input, owner, authorOf(owner));
    if (saved) return { data: toCharacterView(saved) };
    throw slugTaken(input.slug, (await this.repository.findBySlug(input.slug))?.ownerAccountId, owner);
  }

  /** An account deletes its own characters (403 for others'); the operator any. */
  async delete(slug: string, owner: CharacterOwner): Promise<{ deleted: boolean }> {
    if (await this.repository.delete(slug, owner ?? undefined)) return { deleted: true };
    throw notYourCharacter(slug, (await this.record(slug)).ownerAccountId);
  }

  async addReview(slug: string, review: CharacterReviewInput, accountId: string): Promise<AddCharacterReviewReply> {
    const character = await this.record(slug);
    return { data: toReviewView(await this.repository.addReview(character.id, { ...review, accountId }), accountId) };
  }

  /** Only the review's author account deletes it (403 for another's). */
  async deleteReview(slug: string, reviewId: string, accountId: string): Promise<DeleteCharacterReviewReply> {
    const character = await this.record(slug);
    if (await this.repository.deleteReview(character.id, reviewId, accountId)) return { deleted: true };
    throw (await this.repository.findReview(character.id, reviewId)) ? notYourReview(reviewId) : reviewNotFound(reviewId);
  }

  private async record(slug: string): Promise<CharacterRecord> {
    const character = await this.repository.findBySlug(slug);
    if (!character) throw characterNotFound(slug);
    return character;
  }
}
