import { z } from 'zod';
import { detailedErrorSchema, ErrorStyle, openAiErrorSchema, standardErrorSchema } from '@svc/errors';
import { HEADER } from '@svc/headers';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { walletPaymentRequiredSchema } from '../x402/wallet-payment-required.schema';
import { headers, int, ROUTE_HEADERS } from './header-docs';
import { RouteDoc } from './route-docs';

/** On every answer, errors included (libs/headers). */
const EVERY_ANSWER = headers({
  [HEADER.requestId]: 'The request id (also in logs); quote it when reporting a problem',
  [HEADER.requestIdAlias]: 'The same value as CF-RAY, where the OpenAI SDKs read it',
  [HEADER.version]: 'The service revision, a date-time string',
  [HEADER.timestamp]: 'When the answer was made (SVC_TIMESTAMP_HEADER=true)',
});

/** On answers to a request with an API key. */
const RATE_LIMITED = headers({
  [HEADER.rateLimitLimitRequests]: int('Requests allowed in the window'),
  [HEADER.rateLimitRemainingRequests]: int('Requests left in the window'),
  [HEADER.rateLimitResetRequests]: 'When the request window resets',
  [HEADER.rateLimitLimitTokens]: int('Tokens allowed in the window'),
  [HEADER.rateLimitRemainingTokens]: int('Tokens left in the window'),
  [HEADER.rateLimitResetTokens]: 'When the token window resets',
});

const BILLED = headers({
  [HEADER.balanceUsd]: 'The account balance in USD after this request',
  [HEADER.balanceDiem]: 'The account balance in DIEM after this request',
  [HEADER.balanceRemaining]: 'Wallet (SIGN-IN-WITH-X) callers only: their available USD balance (docs/wallet.md)',
  [HEADER.modelId]: 'The model that answered',
  [HEADER.modelName]: "The answering model's display name",
  [HEADER.modelRouter]: 'The kind of engine that ran the model',
  [HEADER.modelDeprecationWarning]: 'Set when the model is deprecated',
  [HEADER.modelDeprecationDate]: 'When a deprecated model goes away',
});

const PAGINATED = headers({
  [HEADER.paginationLimit]: int('Page size'),
  [HEADER.paginationPage]: int('This page'),
  [HEADER.paginationTotal]: int('Items in all pages'),
  [HEADER.paginationTotalPages]: int('Number of pages'),
});

const routeHeaders = (names: readonly string[] = []) => Object.fromEntries(names.map((name) => [name, ROUTE_HEADERS[name]]));

const RETRY = headers({
  [HEADER.retryAfter]: int('Whole seconds to wait before retrying (at least 1)'),
  [HEADER.retryAfterMs]: int('The precise wait in milliseconds'),
});

const ERROR_ONLY = headers({ [HEADER.hostName]: 'The gateway that answered (SVC_HOST_NAME)' });

const WHY: Record<number, string> = {
  400: 'Invalid request: `details` names each field',
  401: 'Missing, unknown or expired API key, or an ADMIN key required',
  402: 'Insufficient balance',
  404: 'Not found',
  410: 'Gone',
  413: 'Request body too large',
  415: 'Unsupported media type',
  429: 'Rate limited; retry-after says when to retry',
  500: 'Unexpected error',
  502: 'The model server failed or answered something unusable',
  503: 'A service is unavailable, or this gateway is shutting down; retry-after says when to retry',
  504: 'A service or the model server did not answer in time',
};

/** The statuses a route may answer, besides success: the common ones by kind of route, then its own. */
export function errorStatuses(doc: RouteDoc): number[] {
  // 503 on every route: a gateway draining for shutdown refuses new requests with it.
  const statuses = new Set<number>([500, 503]);
  if (doc.body || doc.query || doc.path) statuses.add(400);
  if (doc.body) [413, 415].forEach((s) => statuses.add(s));
  if (doc.access !== 'public') [401, 429].forEach((s) => statuses.add(s));
  if (!doc.local) statuses.add(504);
  if (doc.billed) [402, 502].forEach((s) => statuses.add(s));
  doc.errors?.forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

/** A wallet (SIGN-IN-WITH-X) short of credit gets x402's own 402 and PAYMENT-REQUIRED (docs/wallet.md, "Out of credit"). */
const WALLET_402 = { [HEADER.paymentRequired]: ROUTE_HEADERS[HEADER.paymentRequired], [HEADER.balanceRemaining]: BILLED[HEADER.balanceRemaining] };

function errorContent(status: number, walletPayments: boolean, style: ErrorStyle) {
  // ERROR_STYLE=openai: every error is OpenAI's shape (docs/errors.md); x402's 402 stays its own.
  if (style === 'openai')
    return { 'application/json': { schema: status === 402 && walletPayments ? z.union([openAiErrorSchema, walletPaymentRequiredSchema]) : openAiErrorSchema } };
  if (status === 400) return { 'application/json': { schema: z.union([detailedErrorSchema, openAiErrorSchema]) } };
  if (status === 402 && walletPayments) return { 'application/json': { schema: z.union([standardErrorSchema, walletPaymentRequiredSchema]) } };
  return { 'application/json': { schema: standardErrorSchema } };
}

/** `walletPayments`: charged inference a wallet may call, whose 402 may be x402's (WALLET_402). */
export function errorResponse(status: number, own: readonly string[] = [], walletPayments = false, style: ErrorStyle = 'standard'): ZodOpenApiResponseObject {
  const retry = status === 429 || status === 503 ? RETRY : {};
  const wallet = status === 402 && walletPayments ? WALLET_402 : {};
  return {
    description: WHY[status] ?? 'Error',
    headers: z.object({ ...EVERY_ANSWER, ...retry, ...ERROR_ONLY, ...wallet, ...routeHeaders(own) }),
    content: errorContent(status, walletPayments, style),
  };
}

export function successResponse(doc: RouteDoc, style: ErrorStyle = 'standard'): ZodOpenApiResponseObject {
  if ((doc.status ?? 200) >= 400) return errorResponse(doc.status ?? 200, doc.headers, false, style);
  const answerHeaders = z.object({
    ...EVERY_ANSWER,
    ...(doc.access === 'public' ? {} : RATE_LIMITED),
    ...(doc.billed ? BILLED : {}),
    ...(doc.paginated ? PAGINATED : {}),
    ...routeHeaders(doc.headers),
  });
  const content = Object.fromEntries((doc.answers ?? ['application/json']).map((type) => [type, {}]));
  return { description: doc.summary, headers: answerHeaders, content };
}
