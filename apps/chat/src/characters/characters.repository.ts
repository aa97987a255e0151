import { CharacterInput, ListCharactersRequest } from '@svc/contracts';
import { CharacterRecord, CharacterReviewRecord } from './character.record';

export interface NewReview {
  rating: number;
  message: string | null;
  username: string;
  locale: string | null;
}

export interface CharactersRepository {
  list(query: ListCharactersRequest): Promise<{ rows: CharacterRecord[]; total: number }>;
  findBySlug(slug: string): Promise<CharacterRecord | null>;
  /** Creates the character or replaces the one with the same slug (stats and id are kept). */
  upsert(input: CharacterInput, author: string): Promise<CharacterRecord>;
  /** Creates the character unless the slug exists (seeding never overwrites an operator's edits). */
  insertIfMissing(input: CharacterInput, author: string): Promise<boolean>;
  delete(slug: string): Promise<boolean>;
  listReviews(characterId: string, page: number, pageSize: number): Promise<{ rows: CharacterReviewRecord[]; total: number }>;
  /** Adds a review and updates the character's rating stats in one transaction. */
  addReview(characterId: string, review: NewReview): Promise<CharacterReviewRecord>;
}

export const CHARACTERS_REPOSITORY = Symbol('CHARACTERS_REPOSITORY');
