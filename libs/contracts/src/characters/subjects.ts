import { CharacterReviewView, CharacterSort, CharacterView, SortOrder } from './character';
import { CharacterInput } from './schemas';

/** Characters live in the chat service's database; the gateway reads and (ADMIN) writes them here. */
export const CHARACTERS = {
  LIST: 'chat.cmd.list-characters.v1',
  GET: 'chat.cmd.get-character.v1',
  LIST_REVIEWS: 'chat.cmd.list-character-reviews.v1',
  CREATE: 'chat.cmd.create-character.v1',
  DELETE: 'chat.cmd.delete-character.v1',
  ADD_REVIEW: 'chat.cmd.add-character-review.v1',
} as const;

export interface ListCharactersRequest {
  /** Any of these categories (case-insensitive). */
  categories?: string[];
  /** Any of these tags (case-insensitive). */
  tags?: string[];
  modelIds?: string[];
  isAdult?: boolean;
  isPro?: boolean;
  isWebEnabled?: boolean;
  /** Substring of name, description or a tag; `#tag` matches that tag exactly. */
  search?: string;
  sortBy: CharacterSort;
  sortOrder: SortOrder;
  limit: number;
  offset: number;
}
export interface ListCharactersReply {
  data: CharacterView[];
  total: number;
}

export interface GetCharacterRequest {
  slug: string;
}
export interface GetCharacterReply {
  data: CharacterView;
  /** UTF-8 bytes of the persona the chat service adds to prompts (internal: the gateway's hold counts it). */
  personaBytes: number;
}

export interface ListCharacterReviewsRequest {
  slug: string;
  page: number;
  pageSize: number;
}
export interface ListCharacterReviewsReply {
  data: CharacterReviewView[];
  total: number;
  summary: { averageRating: number; totalReviews: number };
}

/** Creates the character, or replaces the one with the same slug. */
export interface CreateCharacterRequest extends CharacterInput {
  /** The creating account; the public `author` is an anonymised digest of it. */
  accountId?: string;
}
export interface CreateCharacterReply {
  data: CharacterView;
}

export interface DeleteCharacterRequest {
  slug: string;
}
export interface DeleteCharacterReply {
  deleted: boolean;
}

export interface AddCharacterReviewRequest {
  slug: string;
  rating: number;
  message: string | null;
  username: string;
  locale: string | null;
}
export interface AddCharacterReviewReply {
  data: CharacterReviewView;
}

export interface CharactersRpc {
  [CHARACTERS.LIST]: { req: ListCharactersRequest; res: ListCharactersReply };
  [CHARACTERS.GET]: { req: GetCharacterRequest; res: GetCharacterReply };
  [CHARACTERS.LIST_REVIEWS]: { req: ListCharacterReviewsRequest; res: ListCharacterReviewsReply };
  [CHARACTERS.CREATE]: { req: CreateCharacterRequest; res: CreateCharacterReply };
  [CHARACTERS.DELETE]: { req: DeleteCharacterRequest; res: DeleteCharacterReply };
  [CHARACTERS.ADD_REVIEW]: { req: AddCharacterReviewRequest; res: AddCharacterReviewReply };
}
