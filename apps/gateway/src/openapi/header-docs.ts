import { z } from 'zod';
import { HEADER } from '@svc/headers';

export type Headers = Record<string, z.ZodType>;

/**
 * Headers described once, under components.headers (named as on the wire), and referred to from
 * every answer that carries them. Optional: most are left out where they do not apply.
 */
export function headers(described: Record<string, string | [string, z.ZodType]>): Headers {
  return Object.fromEntries(
    Object.entries(described).map(([name, what]) => {
      const [description, schema] = typeof what === 'string' ? [what, z.string()] : what;
      return [name, schema.optional().meta({ description, header: { id: name } })];
    }),
  );
}

export const int = (description: string): [string, z.ZodType] => [description, z.int()];

/** Headers particular to a few routes, named by their RouteDoc's `headers`. */
export const ROUTE_HEADERS = headers({
  [HEADER.isBlurred]: 'Image answers: safe mode blurred an output',
  [HEADER.isContentViolation]: 'Image answers: a content violation was found',
  [HEADER.enhancedPrompt]: 'Image answers: the enhance_prompt rewrite, URL-encoded',
  [HEADER.nextCursor]: 'CSV usage history: the cursor of the next page',
  [HEADER.contentDisposition]: 'CSV usage history: an attachment file name',
  [HEADER.deprecation]: 'When the endpoint was deprecated (RFC 9745)',
  [HEADER.sunset]: 'When the endpoint was retired (RFC 8594)',
  [HEADER.link]: 'The successor endpoint (rel="successor-version")',
  [HEADER.paymentResponse]: 'x402 top-up: the settlement result, base64 JSON { success, network, payer, transaction }',
  [HEADER.paymentRequired]: 'x402 402 answer: the payment requirements, base64 JSON',
  [HEADER.rpcCredits]: int('JSON-RPC proxy: credits charged (an item answered with an error at the error price)'),
  [HEADER.rpcCostUsd]: 'JSON-RPC proxy: the USD cost charged, credits x the price of a credit, at least 8 decimals',
  [HEADER.idempotentReplayed]: 'JSON-RPC proxy: "true" when the answer is replayed for an Idempotency-Key',
  [HEADER.completionCapped]: int('Chat at the margin of a key limit or balance: the completion was capped to this many tokens, what the credit covered'),
});
export type RouteHeader = keyof typeof ROUTE_HEADERS;
