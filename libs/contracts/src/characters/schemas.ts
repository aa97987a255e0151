import { z } from 'zod';
import { storedTextSchema } from '../schemas/stored-text';
import { CHARACTER_SORTS } from './character';

/** A character slug: 1-100 lowercase letters, digits and dashes, not starting or ending with a dash. */
export const CHARACTER_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;

export const characterSlugSchema = z.string().regex(CHARACTER_SLUG_PATTERN, 'must be a character slug: 1-100 lowercase letters, digits and dashes');

/** A stored name (tag, category, model id): no NUL, at most `max` characters. */
const storedName = (max: number) => storedTextSchema().trim().min(1).max(max);

/**
 * What an operator writes to create (or replace) a character: the body of `POST /characters`,
 * the operator CLI's input and the `characters.cmd.create` message, one rule set for all three.
 */
export const characterInputSchema = z.object({
  slug: characterSlugSchema,
  name: storedName(200),
  description: storedTextSchema().max(2000).nullable().default(null),
  systemPrompt: storedTextSchema({ message: 'is required' }).trim().min(1, 'is required').max(20_000),
  modelId: storedTextSchema().min(1).max(200),
  tags: z.array(storedName(100)).max(20).default([]),
  categories: z.array(storedName(100)).max(20).default([]),
  adult: z.boolean().default(false),
  webEnabled: z.boolean().default(false),
  featured: z.boolean().default(false),
});

export type CharacterInput = z.output<typeof characterInputSchema>;

/** The account a write is for (`accountId` of a write message): the chat service refuses a write without one. */
export const characterWriterSchema = z.looseObject({ accountId: z.string({ message: 'is required' }).uuid() });

/** `characters.cmd.create`: the input and the creating account (the owner). */
export const createCharacterRequestSchema = characterInputSchema.extend({ accountId: z.string().uuid().optional() });

/** The fields of a review, as `POST /characters/{slug}/reviews` takes them. */
export const characterReviewInputSchema = z.object({
  rating: z.number().int().min(1).max(5),
  message: storedTextSchema().max(2000).nullable().default(null),
  username: storedName(64),
  locale: storedTextSchema().max(16).nullable().default(null),
});

export type CharacterReviewInput = z.output<typeof characterReviewInputSchema>;

const slugRef = z.looseObject({ slug: characterSlugSchema });
const names = (max: number) => z.array(storedTextSchema().max(max)).max(20);
const accountRef = { accountId: z.string().uuid().optional() };

/** `chat.cmd.list-characters` */
export const listCharactersRequestSchema = z.looseObject({
  categories: names(100).optional(),
  tags: names(100).optional(),
  modelIds: names(200).optional(),
  isAdult: z.boolean().optional(),
  isPro: z.boolean().optional(),
  isWebEnabled: z.boolean().optional(),
  search: storedTextSchema().max(200).optional(),
  sortBy: z.enum(CHARACTER_SORTS),
  sortOrder: z.enum(['asc', 'desc']),
  limit: z.number().int().min(1).max(100),
  offset: z.number().int().min(0),
});
/** `chat.cmd.get-character`, `chat.cmd.delete-character` (its `accountId` is checked by the handler, `characterWriterSchema`). */
export const characterRefRequestSchema = slugRef.extend(accountRef);
/** `chat.cmd.list-character-reviews`; `accountId` (the reader) sets `isOwner`. */
export const listCharacterReviewsRequestSchema = slugRef.extend({ page: z.number().int().min(1), pageSize: z.number().int().min(1).max(100), ...accountRef });
/** `chat.cmd.add-character-review` */
export const addCharacterReviewRequestSchema = characterReviewInputSchema.extend({ slug: characterSlugSchema, ...accountRef });
/** `chat.cmd.delete-character-review` */
export const deleteCharacterReviewRequestSchema = slugRef.extend({ reviewId: z.string().uuid(), accountId: z.string().uuid() });
