import { CharacterInput, ListCharactersRequest } from '@svc/contracts';
import { CharacterOwner } from './character-owner';
import { CharacterRecord, CharacterReviewRecord } from './character.record';

export interface NewReview {
  rating: number;
  message: string | null;
  username: string;
  locale: string | null;
  accountId: string;
}

export interface CharactersRepository {
  list(query: ListCharactersRequest): Promise<{ rows: CharacterRecord[]; total: number }>;
  findBySlug(slug: string): Promise<CharacterRecord | null>;
  /**
   * Creates the character owned by `owner`, or replaces the one with the same slug when `owner`
   * owns it (id and stats kept), in one statement; null when another owner holds the slug.
   */
  save(input: CharacterInput, owner: CharacterOwner, author: string): Promise<CharacterRecord | null>;
  /** Creates an operator's character unless the slug exists (seeding never overwrites an operator's edits). */
  insertIfMissing(input: CharacterInput, author: string): Promise<boolean>;
  /** Deletes the character (and its reviews); with `ownedBy`, only when that account owns it. */
  delete(slug: string, ownedBy?: string): Promise<boolean>;
  listReviews(characterId: string, page: number, pageSize: number): Promise<{ rows: CharacterReviewRecord[]; total: number }>;
  findReview(characterId: string, reviewId: string): Promise<CharacterReviewRecord | null>;
  /** Adds a review and updates the character's rating stats in one transaction. */
  addReview(characterId: string, review: NewReview): Promise<CharacterReviewRecord>;
  /** Deletes the review when `accountId` wrote it, taking its rating out of the stats, in one statement. */
  deleteReview(characterId: string, reviewId: string, accountId: string): Promise<boolean>;
}

export const CHARACTERS_REPOSITORY = Symbol('CHARACTERS_REPOSITORY');
