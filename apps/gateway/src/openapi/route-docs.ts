import { z } from 'zod';
import { characterSlugSchema, keyIdSchema } from '@svc/contracts';
import { createKeySchema, deleteKeyQuery, updateKeySchema } from '../api-keys/api-keys.dto';
import { completeAudioSchema, queueAudioSchema, quoteAudioSchema, retrieveAudioSchema, speechRequestSchema } from '../audio/audio-request.dto';
import { videoTranscriptionRequestSchema } from '../audio/video-transcription.dto';
import { transcriptionRequestSchema, translationRequestSchema } from '../audio/audio-request.dto';
import { cloneVoiceSchema } from '../audio/voices.dto';
import { createBatchSchema, listBatchesSchema, listFilesSchema, uploadFileSchema } from '../batches/batch-request.dto';
import { augmentScrapeSchema, augmentSearchSchema, textParserSchema } from '../augment/augment-request.dto';
import { usageAnalyticsQuery, usageHistoryQuery } from '../billing/billing.dto';
import { addReviewBody, createCharacterBody, listCharactersQuery, listReviewsQuery, reviewIdSchema } from '../characters/characters.dto';
import { chatRequestSchema } from '../chat/chat-request.dto';
import { completionsRequestSchema } from '../completions/completions-request.dto';
import { cryptoRpcBodySchema, cryptoRpcParams, idempotencyKeySchema } from '../crypto-rpc/crypto-rpc.dto';
import { embeddingsRequestSchema } from '../embeddings/embeddings-request.dto';
import {
  imageBackgroundRemoveSchema,
  imageEditSchema,
  imageGenerateSchema,
  imageMultiEditSchema,
  imageUpscaleSchema,
  openAiEditSchema,
  openAiImageSchema,
} from '../image/image-request.dto';
import { listQuery, typedQuery } from '../models/models.controller';
import { moderationsRequestSchema } from '../moderations/moderations-request.dto';
import { rerankRequestSchema } from '../rerank/rerank-request.dto';
import { responsesRequestSchema } from '../responses/responses-request.dto';
import { completeVideoSchema, queueVideoSchema, quoteVideoSchema, retrieveVideoSchema } from '../video/video-request.dto';
import { generateWeb3KeySchema } from '../web3-keys/web3-keys.dto';
import { walletParams, x402TransactionsQuery } from '../x402/x402.dto';
import { DOCS_ASSET_NAMES } from './docs-page';
import type { RouteHeader } from './header-docs';

/** Who may call a route: anyone, any API key, or an ADMIN key. */
export type RouteAccess = 'public' | 'key' | 'admin';

/**
 * What the OpenAPI document says about one route. Every schema is the one the route's handler
 * parses its input with: the document cannot drift from what the gateway accepts.
 */
export interface RouteDoc {
  summary: string;
  access: RouteAccess;
  /** Answered by the gateway without waiting on a service over NATS (so never a 504). */
  local?: boolean;
  /** Inference that is charged: 402 when credit runs out, x-svc-balance-* on the answer. */
  billed?: boolean;
  body?: z.ZodType;
  /** Request media types; JSON by default. */
  bodyTypes?: readonly string[];
  query?: z.ZodObject;
  path?: z.ZodObject;
  /** Request headers this route reads besides authentication (e.g. `Idempotency-Key`). */
  requestHeaders?: z.ZodObject;
  /** The success answer's media types; JSON by default. */
  answers?: readonly string[];
  /** The success status; 200 by default. */
  status?: number;
  /** Statuses besides the common ones (docs/openapi.md). */
  errors?: readonly number[];
  paginated?: boolean;
  /** Headers only this route sends (header-docs.ts, ROUTE_HEADERS). */
  headers?: readonly RouteHeader[];
}

const JSON_OR_MULTIPART = ['application/json', 'multipart/form-data'] as const;
const SSE = ['application/json', 'text/event-stream'] as const;
const IMAGES = ['application/json', 'image/png', 'image/jpeg', 'image/webp'] as const;
const AUDIO = ['audio/mpeg', 'audio/opus', 'audio/aac', 'audio/flac', 'audio/wav', 'audio/pcm'] as const;
/** json and verbose_json as JSON; text, srt and vtt as text/plain (OpenAI's type for them). */
const TRANSCRIPTS = ['application/json', 'text/plain'] as const;
const slug = z.object({ slug: characterSlugSchema });
const fileIdParams = z.object({ id: z.string() });
const batchIdParams = z.object({ id: z.string() });
const IMAGE_HEADERS: readonly RouteHeader[] = ['x-svc-is-blurred', 'x-svc-is-content-violation', 'x-svc-enhanced-prompt'];

/** Keyed as libs/testing's `declaredRoutes()` names them: `METHOD /path` below /api/v1, `:params` as declared. */
export const ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /healthz': { summary: 'Health of the gateway and every service (served at /healthz, outside /api/v1)', access: 'public', local: true, errors: [503] },
  'GET /livez': { summary: 'Liveness: the process answers (served at /livez, outside /api/v1)', access: 'public', local: true },
  'GET /readyz': { summary: 'Readiness: false while shutting down (served at /readyz, outside /api/v1)', access: 'public', local: true, errors: [503] },
  'GET /openapi.yaml': { summary: 'This document, as YAML', access: 'public', local: true, answers: ['application/yaml'] },
  'GET /openapi.json': { summary: 'This document, as JSON', access: 'public', local: true },
  'GET /docs': { summary: 'A page rendering this document (Swagger UI, served offline)', access: 'public', local: true, answers: ['text/html'] },
  'GET /docs/:asset': {
    summary: "The docs page's scripts and styles",
    access: 'public',
    local: true,
    path: z.object({ asset: z.enum(DOCS_ASSET_NAMES) }),
    answers: ['text/javascript', 'text/css'],
    errors: [404],
  },
  'POST /chat/completions': {
    summary: 'Chat completion (OpenAI-compatible), streamed as server-sent events with stream: true',
    access: 'key',
    billed: true,
    body: chatRequestSchema,
    answers: SSE,
    headers: ['x-svc-completion-capped'],
  },
  'POST /responses': {
    summary: 'Responses API (OpenAI-compatible)',
    access: 'key',
    billed: true,
    body: responsesRequestSchema,
    answers: SSE,
    headers: ['x-svc-completion-capped'],
  },
  'POST /completions': {
    summary: 'Legacy text completion (OpenAI-compatible): the prompt runs as one chat turn (docs/completions.md); streamed with stream: true',
    access: 'key',
    billed: true,
    body: completionsRequestSchema,
    answers: SSE,
    headers: ['x-svc-completion-capped'],
  },
  'POST /embeddings': { summary: 'Embeddings (OpenAI-compatible)', access: 'key', billed: true, body: embeddingsRequestSchema },
  'POST /rerank': {
    summary: 'Rank documents by relevance to a query (Cohere/Jina shape) on an embedding model, billed as its input tokens',
    access: 'key',
    billed: true,
    body: rerankRequestSchema,
    errors: [404],
  },
  'POST /moderations': {
    summary: 'Moderation (OpenAI-compatible): images by the built-in classifier, text only on a configured moderation model',
    access: 'key',
    billed: true,
    body: moderationsRequestSchema,
    errors: [404],
  },
  'GET /models': { summary: 'List models', access: 'public', local: true, query: listQuery },
  'GET /models/traits': { summary: 'Model traits and the model each names', access: 'public', local: true, query: typedQuery },
  'GET /models/compatibility_mapping': {
    summary: 'Other providers\u2019 model names and the models they map to',
    access: 'public',
    local: true,
    query: typedQuery,
  },
  'GET /models/:id': {
    summary: 'One model, by id, compatibility name or trait (a trait of type, default text)',
    access: 'public',
    local: true,
    path: z.object({ id: z.string() }),
    query: typedQuery,
    errors: [404],
  },
  'GET /image/styles': { summary: 'Image style presets', access: 'public', local: true },
  'POST /image/generate': { summary: 'Generate an image', access: 'key', billed: true, body: imageGenerateSchema, answers: IMAGES, headers: IMAGE_HEADERS },
  'POST /images/generations': {
    summary: 'Generate an image (OpenAI-compatible)',
    access: 'key',
    billed: true,
    body: openAiImageSchema,
    headers: IMAGE_HEADERS,
  },
  'POST /image/edit': {
    summary: 'Edit an image',
    access: 'key',
    billed: true,
    body: imageEditSchema,
    bodyTypes: JSON_OR_MULTIPART,
    answers: ['image/png'],
    headers: IMAGE_HEADERS,
  },
  'POST /images/edits': {
    summary: 'Edit an image (OpenAI-compatible)',
    access: 'key',
    billed: true,
    body: openAiEditSchema,
    bodyTypes: JSON_OR_MULTIPART,
    headers: IMAGE_HEADERS,
  },
  'POST /image/upscale': {
    summary: 'Upscale or enhance an image',
    access: 'key',
    billed: true,
    body: imageUpscaleSchema,
    bodyTypes: JSON_OR_MULTIPART,
    answers: ['image/png'],
    headers: IMAGE_HEADERS,
  },
  'POST /image/multi-edit': {
    summary: 'Edit an image with several input images and one prompt',
    access: 'key',
    billed: true,
    body: imageMultiEditSchema,
    bodyTypes: JSON_OR_MULTIPART,
    answers: ['image/png', 'image/jpeg', 'image/webp'],
  },
  'POST /image/background-remove': {
    summary: 'Remove the background of an image (classical method)',
    access: 'key',
    billed: true,
    body: imageBackgroundRemoveSchema,
    bodyTypes: JSON_OR_MULTIPART,
    answers: ['image/png'],
  },
  'POST /audio/speech': { summary: 'Text to speech', access: 'key', billed: true, body: speechRequestSchema, answers: AUDIO },
  'POST /audio/transcriptions': {
    summary: 'Speech to text',
    access: 'key',
    billed: true,
    body: transcriptionRequestSchema,
    bodyTypes: ['multipart/form-data'],
    answers: TRANSCRIPTS,
  },
  'POST /audio/translations': {
    summary: 'Speech to English text',
    access: 'key',
    billed: true,
    body: translationRequestSchema,
    bodyTypes: ['multipart/form-data'],
    answers: TRANSCRIPTS,
  },
  'POST /video/transcriptions': {
    summary: 'Transcript of a video (or audio) file at a URL, fetched through the SSRF guard; not web pages',
    access: 'key',
    billed: true,
    body: videoTranscriptionRequestSchema,
    answers: ['application/json', 'text/plain'],
    errors: [413],
  },
  'POST /audio/voices': { summary: 'Clone a voice from a sample', access: 'key', body: cloneVoiceSchema, bodyTypes: ['multipart/form-data'] },
  'POST /audio/quote': { summary: 'Price of an audio job', access: 'public', local: true, body: quoteAudioSchema },
  'POST /audio/queue': { summary: 'Queue an audio job', access: 'key', billed: true, body: queueAudioSchema },
  'POST /audio/retrieve': {
    summary: 'Status or result of an audio job',
    access: 'key',
    body: retrieveAudioSchema,
    answers: ['application/json', ...AUDIO],
    errors: [404],
  },
  'POST /audio/complete': { summary: 'Delete a finished audio job', access: 'key', body: completeAudioSchema, errors: [404] },
  'POST /files': {
    summary: 'Upload a JSONL batch input (purpose "batch"); kept BATCH_FILE_TTL_MS',
    access: 'key',
    local: true,
    body: uploadFileSchema,
    bodyTypes: ['multipart/form-data'],
    errors: [413, 415],
  },
  'GET /files': { summary: "The account's files, newest first unless order=asc", access: 'key', local: true, query: listFilesSchema },
  'GET /files/:id': { summary: 'A file', access: 'key', local: true, path: fileIdParams, errors: [404] },
  'GET /files/:id/content': { summary: "A file's bytes", access: 'key', local: true, path: fileIdParams, answers: ['application/octet-stream'], errors: [404] },
  'DELETE /files/:id': { summary: 'Delete a file and its bytes', access: 'key', local: true, path: fileIdParams, errors: [404] },
  'POST /batches': {
    summary: 'Run a JSONL file of requests as a batch (each line admitted and billed as a request)',
    access: 'key',
    local: true,
    body: createBatchSchema,
    errors: [404],
  },
  'GET /batches': { summary: "The account's batches, newest first", access: 'key', local: true, query: listBatchesSchema },
  'GET /batches/:id': { summary: 'A batch: status, counts, output and error files', access: 'key', local: true, path: batchIdParams, errors: [404] },
  'POST /batches/:id/cancel': { summary: 'Cancel a batch: lines not yet started do not run', access: 'key', local: true, path: batchIdParams, errors: [404] },
  'POST /video/quote': { summary: 'Price of a video job', access: 'key', body: quoteVideoSchema, errors: [403] },
  'POST /video/queue': { summary: 'Queue a video job', access: 'key', billed: true, body: queueVideoSchema, errors: [403] },
  'POST /video/retrieve': {
    summary: 'Status or result of a video job',
    access: 'key',
    body: retrieveVideoSchema,
    answers: ['application/json', 'video/mp4', 'video/quicktime'],
    errors: [404],
  },
  'POST /video/complete': { summary: 'Delete a video job and its media', access: 'key', body: completeVideoSchema, errors: [404] },
  'GET /video/download/:queueId': {
    summary: 'A finished video by its signed download_url (no key)',
    access: 'public',
    path: z.object({ queueId: z.string().uuid() }),
    query: z.object({ expires: z.string(), signature: z.string() }),
    answers: ['video/mp4', 'video/quicktime'],
    errors: [403, 404, 409],
  },
  'POST /augment/search': { summary: 'Web search', access: 'key', billed: true, body: augmentSearchSchema },
  'POST /augment/scrape': { summary: 'Fetch a web page as markdown', access: 'key', billed: true, body: augmentScrapeSchema },
  'POST /augment/text-parser': {
    summary: 'Extract the text of a document',
    access: 'key',
    body: textParserSchema,
    bodyTypes: ['multipart/form-data'],
    answers: ['application/json', 'text/plain'],
  },
  'GET /characters': { summary: 'List characters', access: 'key', query: listCharactersQuery, paginated: true },
  'GET /characters/:slug': { summary: 'One character', access: 'key', path: slug, errors: [404] },
  'GET /characters/:slug/reviews': { summary: "A character's reviews", access: 'key', path: slug, query: listReviewsQuery, paginated: true, errors: [404] },
  'POST /characters': { summary: 'Create or replace a character', access: 'admin', body: createCharacterBody, errors: [403] },
  'DELETE /characters/:slug': { summary: 'Delete a character', access: 'admin', path: slug, errors: [404] },
  'POST /characters/:slug/reviews': { summary: 'Add a review', access: 'admin', path: slug, body: addReviewBody, errors: [404] },
  'DELETE /characters/:slug/reviews/:id': { summary: 'Delete a review', access: 'admin', path: slug.extend({ id: reviewIdSchema }), errors: [403, 404] },
  'GET /api_keys': { summary: "List the account's API keys", access: 'admin' },
  'GET /api_keys/:id': { summary: 'One API key', access: 'admin', path: z.object({ id: keyIdSchema }), errors: [404] },
  'POST /api_keys': { summary: 'Create an API key', access: 'admin', body: createKeySchema },
  'PATCH /api_keys': { summary: 'Update an API key', access: 'admin', body: updateKeySchema, errors: [404] },
  'DELETE /api_keys': { summary: 'Delete an API key', access: 'admin', query: deleteKeyQuery, errors: [404] },
  'GET /api_keys/generate_web3_key': { summary: 'A token for a wallet to sign (then POST it to get an API key)', access: 'public' },
  'POST /api_keys/generate_web3_key': {
    summary: 'Create an API key for the wallet that signed the token',
    access: 'public',
    body: generateWeb3KeySchema,
    errors: [401],
  },
  'GET /api_keys/rate_limits': { summary: "The calling key's rate limits and balances", access: 'key' },
  'GET /api_keys/rate_limits/log': { summary: 'Recent rate-limit refusals', access: 'admin' },
  'GET /billing/balance': { summary: 'Account balance', access: 'admin' },
  'GET /billing/usage': {
    summary: 'Retired: answers 410 naming GET /billing/usage-history',
    access: 'public',
    local: true,
    status: 410,
    headers: ['deprecation', 'sunset', 'link'],
  },
  'GET /billing/usage-history': {
    summary: 'Usage history, JSON or CSV (Accept: text/csv)',
    access: 'admin',
    query: usageHistoryQuery,
    answers: ['application/json', 'text/csv'],
    paginated: true,
    headers: ['x-next-cursor', 'content-disposition'],
  },
  'GET /billing/usage-analytics': { summary: 'Usage totals by day and model', access: 'admin', query: usageAnalyticsQuery },
  'POST /x402/top-up': {
    summary: 'Top up a wallet with USDC (x402): without PAYMENT-SIGNATURE, 402 with the payment options',
    access: 'public',
    errors: [400, 402, 409],
    headers: ['payment-response', 'payment-required'],
  },
  'GET /crypto/rpc/networks': { summary: 'The networks the JSON-RPC proxy serves, sorted', access: 'public' },
  'POST /crypto/rpc/:network': {
    summary: 'Relay a JSON-RPC 2.0 call or batch (at most 100) to a blockchain node, billed per credit; Idempotency-Key replays an answer for 24 h',
    access: 'key',
    billed: true,
    path: cryptoRpcParams,
    requestHeaders: z.object({ 'Idempotency-Key': idempotencyKeySchema.optional() }),
    body: cryptoRpcBodySchema,
    errors: [409],
    headers: ['x-svc-rpc-credits', 'x-svc-rpc-cost-usd', 'idempotent-replayed'],
  },
  'GET /x402/balance/:walletAddress': {
    summary: "A wallet's credit balance: the wallet signed in (SIGN-IN-WITH-X) or an ADMIN key of its account",
    access: 'key',
    path: walletParams,
    errors: [403],
  },
  'GET /x402/transactions/:walletAddress': {
    summary: "A wallet's top-ups and charges, newest first: the wallet signed in (SIGN-IN-WITH-X) or an ADMIN key of its account",
    access: 'key',
    path: walletParams,
    query: x402TransactionsQuery,
    errors: [403],
  },
};
