import { CharacterReviewView, CharacterView } from '@svc/contracts';
import { CharacterRecord, CharacterReviewRecord } from './character.record';

export const averageRating = (ratingSum: number, ratingCount: number): number => (ratingCount > 0 ? Math.round((ratingSum / ratingCount) * 100) / 100 : 0);

/** The public view: everything but the system prompt and the categories. */
export function toCharacterView(c: CharacterRecord): CharacterView {
  return {
    id: c.id,
    slug: c.slug,
    name: c.name,
    description: c.description,
    modelId: c.modelId,
    tags: c.tags,
    adult: c.adult,
    webEnabled: c.webEnabled,
    featured: c.featured,
    author: c.author,
    shareUrl: null,
    photoUrl: null,
    stats: {
      averageRating: averageRating(c.ratingSum, c.ratingCount),
      imports: c.imports,
      ratingCount: c.ratingCount,
      ratingSum: c.ratingSum,
      userRating: null,
    },
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** `reader`: the account asking; its own reviews have `isOwner: true`. */
export function toReviewView(r: CharacterReviewRecord, reader?: string): CharacterReviewView {
  return {
    id: r.id,
    characterId: r.characterId,
    rating: r.rating,
    message: r.message,
    username: r.username,
    locale: r.locale,
    userAvatarUrl: null,
    isOwner: reader !== undefined && r.accountId === reader,
    createdAt: r.createdAt.toISOString(),
  };
}
