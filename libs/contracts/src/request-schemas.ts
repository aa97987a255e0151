import { z } from 'zod';
import {
  audioJobRefSchema,
  cloneVoiceRequestSchema,
  probeAudioRequestSchema,
  queueAudioRequestSchema,
  retrieveAudioRequestSchema,
  speechRequestSchema,
  streamSpeechRequestSchema,
  transcribeRequestSchema,
} from './audio/schemas';
import { AUDIO } from './audio/subjects';
import { augmentParseTextRequestSchema, augmentScrapeRequestSchema, augmentSearchRequestSchema } from './augment/schemas';
import { AUGMENT } from './augment/subjects';
import { CHARACTERS } from './characters/subjects';
import { completeChatRequestSchema, countPromptRequestSchema, streamChatRequestSchema } from './chat/schemas';
import { CHAT } from './chat/subjects';
import {
  addCharacterReviewRequestSchema,
  deleteCharacterReviewRequestSchema,
  characterRefRequestSchema,
  createCharacterRequestSchema,
  listCharacterReviewsRequestSchema,
  listCharactersRequestSchema,
} from './characters/schemas';
import { countEmbeddingTokensRequestSchema, createEmbeddingsRequestSchema } from './embeddings/schemas';
import { EMBEDDINGS } from './embeddings/subjects';
import { imageBackgroundRemoveRequestSchema, imageEditRequestSchema, imageGenerateRequestSchema, imageUpscaleRequestSchema } from './media/schemas';
import { MEDIA } from './media/subjects';
import { createModerationRequestSchema } from './moderations/schemas';
import { MODERATIONS } from './moderations/subjects';
import { RpcRequest, RpcSubject } from './rpc';
import {
  downloadVideoRequestSchema,
  probeAudioClipRequestSchema,
  probeVideoRequestSchema,
  queueVideoRequestSchema,
  retrieveVideoRequestSchema,
  videoJobRefSchema,
} from './video/schemas';
import { VIDEO } from './video/subjects';

/**
 * The runtime schema of a subject's request, where one exists: the receiving service's NATS server
 * (`SvcNatsServer` in @svc/messaging) validates every message against it before the handler runs,
 * answering a Validation error (400) for a bad payload instead of letting the handler trust it.
 * The handler receives the parsed value (defaults applied). Message schemas are loose objects:
 * fields they do not name pass through unchecked, so a field added on one side is never dropped
 * on the other. Not listed: keys and billing subjects, whose handlers validate with their
 * @svc/contracts schemas themselves, and the health and prompt-budget queries (no payload).
 */
export const REQUEST_SCHEMAS = {
  [CHAT.COMPLETE]: completeChatRequestSchema,
  [CHAT.STREAM]: streamChatRequestSchema,
  [CHAT.COUNT_PROMPT]: countPromptRequestSchema,
  [CHARACTERS.CREATE]: createCharacterRequestSchema,
  [CHARACTERS.LIST]: listCharactersRequestSchema,
  [CHARACTERS.GET]: characterRefRequestSchema,
  [CHARACTERS.DELETE]: characterRefRequestSchema,
  [CHARACTERS.LIST_REVIEWS]: listCharacterReviewsRequestSchema,
  [CHARACTERS.ADD_REVIEW]: addCharacterReviewRequestSchema,
  [CHARACTERS.DELETE_REVIEW]: deleteCharacterReviewRequestSchema,
  [EMBEDDINGS.CREATE]: createEmbeddingsRequestSchema,
  [EMBEDDINGS.COUNT_TOKENS]: countEmbeddingTokensRequestSchema,
  [MEDIA.IMAGE_GENERATE]: imageGenerateRequestSchema,
  [MEDIA.IMAGE_EDIT]: imageEditRequestSchema,
  [MEDIA.IMAGE_UPSCALE]: imageUpscaleRequestSchema,
  [MEDIA.IMAGE_BACKGROUND_REMOVE]: imageBackgroundRemoveRequestSchema,
  [MODERATIONS.CREATE]: createModerationRequestSchema,
  [AUDIO.SPEECH]: speechRequestSchema,
  [AUDIO.SPEECH_STREAM]: streamSpeechRequestSchema,
  [AUDIO.PROBE]: probeAudioRequestSchema,
  [AUDIO.TRANSCRIBE]: transcribeRequestSchema,
  [AUDIO.QUEUE]: queueAudioRequestSchema,
  [AUDIO.RETRIEVE]: retrieveAudioRequestSchema,
  [AUDIO.COMPLETE]: audioJobRefSchema,
  [AUDIO.CLONE_VOICE]: cloneVoiceRequestSchema,
  [AUGMENT.SEARCH]: augmentSearchRequestSchema,
  [AUGMENT.SCRAPE]: augmentScrapeRequestSchema,
  [AUGMENT.PARSE_TEXT]: augmentParseTextRequestSchema,
  [VIDEO.PROBE]: probeVideoRequestSchema,
  [VIDEO.PROBE_AUDIO]: probeAudioClipRequestSchema,
  [VIDEO.QUEUE]: queueVideoRequestSchema,
  [VIDEO.RETRIEVE]: retrieveVideoRequestSchema,
  [VIDEO.COMPLETE]: videoJobRefSchema,
  [VIDEO.DOWNLOAD]: downloadVideoRequestSchema,
} satisfies Partial<Record<RpcSubject, z.ZodType>>;

export const requestSchemaOf = (subject: string): z.ZodType | undefined => (REQUEST_SCHEMAS as Partial<Record<string, z.ZodType>>)[subject];

/**
 * Compile-time proof, for every subject above, that what its schema lets through is assignable to
 * the request type its handler is typed with (`RpcMap`): a field changed on one side only fails
 * `npm run typecheck` (`Misfit` is the subject).
 */
type Listed = keyof typeof REQUEST_SCHEMAS;
type Misfit = { [S in Listed]: z.output<(typeof REQUEST_SCHEMAS)[S]> extends RpcRequest<S> ? never : S }[Listed];
export const REQUEST_SCHEMAS_FIT: [Misfit] extends [never] ? true : { misfit: Misfit } = true;
