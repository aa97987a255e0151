import { RequestBilling } from '../billing/subjects';
import { ImageBlob } from '../media/image-requests';
import { CallerContext } from '../services';

export const MODERATIONS = {
  /** Classifies texts and images with a `moderation` model of the catalog (served by the media service). */
  CREATE: 'media.cmd.moderate.v1',
} as const;

/** OpenAI's moderation categories, in its order; every result names all of them. */
export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** One part of a multi-modal input: images were fetched and checked by the gateway, and travel as blobs. */
export type ModerationInputPart = { type: 'text'; text: string } | { type: 'image'; image: ImageBlob };

/**
 * What is classified. `texts` (a string or an array of strings): one result per string. `parts`
 * (OpenAI's multi-modal array): one result for all the parts together.
 */
export type ModerationInput = { kind: 'texts'; texts: string[] } | { kind: 'parts'; parts: ModerationInputPart[] };

/** The billed quantity (`{kind: 'request', requests}`, priced by `pricing.per_request`): one per string or part. */
export function moderationInputCount(input: ModerationInput): number {
  return input.kind === 'texts' ? input.texts.length : input.parts.length;
}

export interface CreateModerationRequest {
  caller: CallerContext;
  /** The catalog id the gateway resolved. */
  model: string;
  input: ModerationInput;
  /** Present when the gateway reserved credit: the media service settles it once the model answered. */
  billing?: RequestBilling;
}

/** One result in OpenAI's shape; an upstream's extra categories pass through. */
export interface ModerationResult {
  flagged: boolean;
  categories: Record<string, boolean | null>;
  category_scores: Record<string, number>;
  category_applied_input_types?: Record<string, Array<'text' | 'image'>>;
}

export interface CreateModerationReply {
  /** The catalog id of the model that ran. */
  model: string;
  results: ModerationResult[];
}

export interface ModerationsRpc {
  [MODERATIONS.CREATE]: { req: CreateModerationRequest; res: CreateModerationReply };
}
