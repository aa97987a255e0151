import { CharacterInput } from '@svc/contracts';

/** A character row as the service works with it (the system prompt never leaves the chat service). */
export interface CharacterRecord extends CharacterInput {
  id: string;
  author: string;
  /** The owning account; null: the operator's. */
  ownerAccountId: string | null;
  imports: number;
  ratingCount: number;
  ratingSum: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface CharacterReviewRecord {
  id: string;
  characterId: string;
  rating: number;
  message: string | null;
  username: string;
  locale: string | null;
  /** The account that wrote it; null for reviews older than authors. */
  accountId: string | null;
  createdAt: Date;
}
