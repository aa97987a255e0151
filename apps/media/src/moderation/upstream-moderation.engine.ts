import { DomainError, ErrorCode } from '@svc/errors';
import { fetchUpstreamText, hostsOf, UpstreamErrors } from '@svc/upstream';
import { ModerationResult } from '@svc/contracts';

export interface UpstreamModerationOptions {
  /** e.g. `http://127.0.0.1:8000/v1` */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/** What is sent: strings, or OpenAI's multi-modal parts with images as data URLs. */
export type UpstreamModerationPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
export type UpstreamModerationInput = string[] | UpstreamModerationPart[];

/**
 * An OpenAI-compatible moderation server (`POST /moderations`): the request goes as OpenAI's,
 * with the upstream's model name; its results come back in OpenAI's shape (extra categories it
 * scores pass through). Failures are mapped by `@svc/upstream` like every engine's.
 */
export class UpstreamModerationEngine {
  private readonly errors: UpstreamErrors;

  constructor(private readonly options: UpstreamModerationOptions) {
    this.errors = new UpstreamErrors('moderation', { hosts: hostsOf([options.baseUrl]), secrets: [options.apiKey] });
  }

  async classify(input: UpstreamModerationInput, expectedResults: number): Promise<ModerationResult[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/moderations`;
    const text = await fetchUpstreamText(this.errors, url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: this.options.model, input }),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    const results = parseResults(text);
    if (!results || results.length !== expectedResults)
      throw new DomainError(ErrorCode.Upstream, 'The model server answered something that is not a moderation response for this input.');
    return results;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The results of an OpenAI moderation response, each with its four fields checked; null when the body is not one. */
export function parseResults(text: string): ModerationResult[] | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(body) || !Array.isArray(body.results)) return null;
  const results: ModerationResult[] = [];
  for (const r of body.results as unknown[]) {
    if (!isRecord(r) || typeof r.flagged !== 'boolean' || !isRecord(r.categories) || !isRecord(r.category_scores)) return null;
    const categories = Object.fromEntries(Object.entries(r.categories).filter(([, v]) => typeof v === 'boolean' || v === null)) as Record<
      string,
      boolean | null
    >;
    const scores = Object.fromEntries(Object.entries(r.category_scores).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
    const result: ModerationResult = { flagged: r.flagged, categories, category_scores: scores };
    if (isRecord(r.category_applied_input_types)) {
      result.category_applied_input_types = Object.fromEntries(
        Object.entries(r.category_applied_input_types)
          .filter(([, v]) => Array.isArray(v))
          .map(([k, v]) => [k, (v as unknown[]).filter((t): t is 'text' | 'image' => t === 'text' || t === 'image')]),
      );
    }
    results.push(result);
  }
  return results;
}
