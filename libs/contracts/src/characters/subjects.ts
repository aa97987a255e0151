import { CharacterReviewView, CharacterSort, CharacterView, SortOrder } from './character';
import { CharacterInput } from './schemas';

/**
 * Characters live in the chat service's database; the gateway reads and (ADMIN) writes them here.
 * v2 of the writes: each names the writing account, and only the owner may change or delete
 * (docs/chat.md, "Who may write"); a v1 peer would ignore that, so the subjects moved.
 */
export const CHARACTERS = {
  LIST: 'chat.cmd.list-characters.v1',
  GET: 'chat.cmd.get-character.v1',
  LIST_REVIEWS: 'chat.cmd.list-character-reviews.v1',
  CREATE: 'chat.cmd.create-character.v2',
  DELETE: 'chat.cmd.delete-character.v2',
  ADD_REVIEW: 'chat.cmd.add-character-review.v2',
  DELETE_REVIEW: 'chat.cmd.delete-character-review.v1',
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
  /** The reader: their own reviews have `isOwner: true`. */
  accountId?: string;
}
export interface ListCharacterReviewsReply {
  data: CharacterReviewView[];
  total: number;
  summary: { averageRating: number; totalReviews: number };
}

/** Creates the character, or replaces the one with the same slug when the same account owns it (else 409). */
export interface CreateCharacterRequest extends CharacterInput {
  /** The writing account, which owns what it creates; the public `author` is an anonymised digest of it. Required: the chat service refuses a write without it. */
  accountId?: string;
}
export interface CreateCharacterReply {
  data: CharacterView;
}

/** Deletes the character when the account owns it (else 403). */
export interface DeleteCharacterRequest {
  slug: string;
  /** The writing account. Required: the chat service refuses a write without it. */
  accountId?: string;
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
  /** The writing account, the review's author. Required: the chat service refuses a write without it. */
  accountId?: string;
}
export interface AddCharacterReviewReply {
  data: CharacterReviewView;
}

/** Deletes a review when the account wrote it (else 403) and takes its rating out of the stats. */
export interface DeleteCharacterReviewRequest {
  slug: string;
  reviewId: string;
  accountId: string;
}
export interface DeleteCharacterReviewReply {
  deleted: boolean;
}

export interface CharactersRpc {
  [CHARACTERS.LIST]: { req: ListCharactersRequest; res: ListCharactersReply };
  [CHARACTERS.GET]: { req: GetCharacterRequest; res: GetCharacterReply };
  [CHARACTERS.LIST_REVIEWS]: { req: ListCharacterReviewsRequest; res: ListCharacterReviewsReply };
  [CHARACTERS.CREATE]: { req: CreateCharacterRequest; res: CreateCharacterReply };
  [CHARACTERS.DELETE]: { req: DeleteCharacterRequest; res: DeleteCharacterReply };
  [CHARACTERS.ADD_REVIEW]: { req: AddCharacterReviewRequest; res: AddCharacterReviewReply };
  [CHARACTERS.DELETE_REVIEW]: { req: DeleteCharacterReviewRequest; res: DeleteCharacterReviewReply };
}
