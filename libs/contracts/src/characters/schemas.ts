import { z } from 'zod';
import { CHARACTER_SORTS } from './character';

/** A character slug: 1-100 lowercase letters, digits and dashes, not starting or ending with a dash. */
export const CHARACTER_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;

export const characterSlugSchema = z.string().regex(CHARACTER_SLUG_PATTERN, 'must be a character slug: 1-100 lowercase letters, digits and dashes');

/**
 * What an operator writes to create (or replace) a character: the body of `POST /characters`,
 * the operator CLI's input and the `characters.cmd.create` message, one rule set for all three.
 */
export const characterInputSchema = z.object({
  slug: characterSlugSchema,
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable().default(null),
  systemPrompt: z.string({ message: 'is required' }).trim().min(1, 'is required').max(20_000),
  modelId: z.string().min(1).max(200),
  tags: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  categories: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  adult: z.boolean().default(false),
  webEnabled: z.boolean().default(false),
  featured: z.boolean().default(false),
});

export type CharacterInput = z.output<typeof characterInputSchema>;

/** `characters.cmd.create`: the input and the creating account (the CLI sends none). */
export const createCharacterRequestSchema = characterInputSchema.extend({ accountId: z.string().uuid().optional() });

/** The fields of a review, as `POST /characters/{slug}/reviews` takes them. */
export const characterReviewInputSchema = z.object({
  rating: z.number().int().min(1).max(5),
  message: z.string().max(2000).nullable().default(null),
  username: z.string().trim().min(1).max(64),
  locale: z.string().max(16).nullable().default(null),
});

const slugRef = z.looseObject({ slug: characterSlugSchema });
const names = (max: number) => z.array(z.string().max(max)).max(20);

/** `chat.cmd.list-characters` */
export const listCharactersRequestSchema = z.looseObject({
  categories: names(100).optional(),
  tags: names(100).optional(),
  modelIds: names(200).optional(),
  isAdult: z.boolean().optional(),
  isPro: z.boolean().optional(),
  isWebEnabled: z.boolean().optional(),
  search: z.string().max(200).optional(),
  sortBy: z.enum(CHARACTER_SORTS),
  sortOrder: z.enum(['asc', 'desc']),
  limit: z.number().int().min(1).max(100),
  offset: z.number().int().min(0),
});
/** `chat.cmd.get-character`, `chat.cmd.delete-character` */
export const characterRefRequestSchema = slugRef;
/** `chat.cmd.list-character-reviews` */
export const listCharacterReviewsRequestSchema = slugRef.extend({ page: z.number().int().min(1), pageSize: z.number().int().min(1).max(100) });
/** `chat.cmd.add-character-review` */
export const addCharacterReviewRequestSchema = characterReviewInputSchema.extend({ slug: characterSlugSchema });
