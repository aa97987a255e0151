/** A character (persona) as the public API shows it: GET /characters and /characters/{slug}. */
export interface CharacterStats {
  averageRating: number;
  imports: number;
  ratingCount: number;
  ratingSum: number;
  /** The caller's own rating; callers cannot rate yet, so always null. */
  userRating: number | null;
}

export interface CharacterView {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  /** The model the persona was written for; chat requests naming the `default` model use it. */
  modelId: string;
  tags: string[];
  adult: boolean;
  webEnabled: boolean;
  featured: boolean;
  /** Short anonymised identifier of the author. */
  author: string;
  shareUrl: string | null;
  photoUrl: string | null;
  stats: CharacterStats;
  createdAt: string;
  updatedAt: string;
}

export const CHARACTER_SORTS = ['featured', 'highestRating', 'highlyRated', 'highlyRatedAndRecent', 'imports', 'mostRecent', 'ratingCount'] as const;
export type CharacterSort = (typeof CHARACTER_SORTS)[number];
export type SortOrder = 'asc' | 'desc';

export interface CharacterReviewView {
  id: string;
  characterId: string;
  rating: number;
  message: string | null;
  username: string;
  locale: string | null;
  userAvatarUrl: string | null;
  isOwner: boolean;
  createdAt: string;
}
