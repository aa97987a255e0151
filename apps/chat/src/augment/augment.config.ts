import { z } from 'zod';
import { positiveInt } from '@svc/config';
import { Allowlist } from '@svc/outbound';
import { BRAVE_SEARCH_URL } from './search/brave.provider';

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** The chat service's variables for web search, scraping and document parsing (docs/retrieval.md). */
export const augmentEnv = {
  /** Base URL of a SearXNG instance with the JSON format enabled, e.g. http://searxng:8080. */
  SEARXNG_URL: optional(z.string().url()),
  /** Brave Search API subscription token (https://api-dashboard.search.brave.com). */
  BRAVE_SEARCH_API_KEY: optional(z.string().min(1)),
  BRAVE_SEARCH_URL: z.string().url().default(BRAVE_SEARCH_URL),
  /** Which configured provider answers when both are; unset: SearXNG first. */
  SEARCH_PROVIDER: optional(z.enum(['searxng', 'brave'])),
  SEARCH_TIMEOUT_MS: positiveInt(8_000),
  /** Hosts, IPs and CIDRs the SSRF guard lets through although private (comma-separated). */
  OUTBOUND_ALLOWLIST: optional(
    z.string().refine((v) => {
      try {
        Allowlist.parse(v);
        return true;
      } catch {
        return false;
      }
    }, 'host names, IP addresses or CIDR ranges, comma-separated'),
  ),
  OUTBOUND_MAX_BYTES: positiveInt(5 * 1024 * 1024),
  OUTBOUND_TIMEOUT_MS: positiveInt(10_000),
  OUTBOUND_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
  /** Longest Markdown a scrape returns (longer pages are cut with a marker). */
  SCRAPE_MAX_CHARS: positiveInt(100_000),
  /** Largest document /augment/text-parser accepts. */
  TEXT_PARSER_MAX_BYTES: positiveInt(25 * 1024 * 1024),
};

export const augmentConfigSchema = z.object(augmentEnv);
export type AugmentConfig = z.infer<typeof augmentConfigSchema>;
