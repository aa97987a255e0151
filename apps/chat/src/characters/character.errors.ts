import { DomainError, ErrorCode } from '@svc/errors';
import { CharacterOwner, OPERATOR } from './character-owner';

/** A DetailedError whose `details` name the field the refusal is about. */
const about = (code: ErrorCode, field: string, message: string) => new DomainError(code, message, { _errors: [], [field]: { _errors: [message] } });

export const characterNotFound = (slug: string) => new DomainError(ErrorCode.NotFound, `Character "${slug}" not found.`);

export const reviewNotFound = (reviewId: string) => new DomainError(ErrorCode.NotFound, `Review "${reviewId}" not found.`);

/** 409: the slug is another owner's. Characters are public, so saying that it exists leaks nothing. */
export function slugTaken(slug: string, holder: CharacterOwner | undefined, writer: CharacterOwner): DomainError {
  if (writer === OPERATOR) return about(ErrorCode.Conflict, 'slug', `Character "${slug}" belongs to an account; delete it first to take the slug over.`);
  return about(
    ErrorCode.Conflict,
    'slug',
    holder === OPERATOR
      ? `Character "${slug}" is one of the operator's (managed with the characters CLI); choose another slug.`
      : `Character "${slug}" belongs to another account; choose another slug.`,
  );
}

/** 403: the character exists (everyone can read it) but the caller does not own it. */
export const notYourCharacter = (slug: string, holder: CharacterOwner) =>
  new DomainError(
    ErrorCode.Forbidden,
    holder === OPERATOR
      ? `Character "${slug}" is one of the operator's (managed with the characters CLI); API keys cannot change or delete it.`
      : `Character "${slug}" belongs to another account.`,
  );

export const notYourReview = (reviewId: string) => new DomainError(ErrorCode.Forbidden, `Review "${reviewId}" was written by another account.`);

/** Featuring puts a character first in every account's default listing: the operator's call. */
export const featuredByOperatorOnly = () => about(ErrorCode.Forbidden, 'featured', 'Only the operator features characters (characters CLI, --featured).');
