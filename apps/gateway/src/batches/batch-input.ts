import { DomainError, ErrorCode } from '@svc/errors';
import { BatchEndpoint, BatchLine } from './batch.types';

const MAX_CUSTOM_ID_CHARS = 512;

const refuse = (line: number, problem: string) =>
  new DomainError(ErrorCode.Validation, `Line ${line} of the input file ${problem}.`, {
    _errors: [],
    input_file_id: { _errors: [`line ${line}: ${problem}`] },
  });

/** The non-empty lines of a JSONL file, numbered from 1 as an editor shows them. */
export function jsonlLines(text: string): { number: number; text: string }[] {
  return text
    .split('\n')
    .map((raw, i) => ({ number: i + 1, text: raw.replace(/\r$/, '') }))
    .filter((l) => l.text.trim() !== '');
}

/** Counts lines for the upload's limit, without parsing them. */
export const countJsonlLines = (text: string): number => jsonlLines(text).length;

/**
 * Every line of a batch input (`{custom_id, method: "POST", url, body}`), checked before anything
 * runs: valid JSON, a unique non-empty custom_id, POST to the batch's endpoint, an object body.
 * The first bad line is a 400 that names it. The request bodies themselves are checked when each
 * line runs, as the live endpoint checks them (a bad one becomes a 400 line in the error file).
 */
export function parseBatchInput(text: string, endpoint: BatchEndpoint, maxLines: number): BatchLine[] {
  const lines = jsonlLines(text);
  if (lines.length === 0) throw new DomainError(ErrorCode.Validation, 'The input file has no request lines.');
  if (lines.length > maxLines) throw new DomainError(ErrorCode.Validation, `The input file has ${lines.length} lines; a batch takes at most ${maxLines}.`);
  const seen = new Set<string>();
  return lines.map(({ number, text: raw }, index) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw refuse(number, 'is not valid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse(number, 'is not a JSON object');
    const { custom_id: customId, method, url, body } = value as Record<string, unknown>;
    if (typeof customId !== 'string' || customId === '') throw refuse(number, 'has no custom_id (a non-empty string)');
    if (customId.length > MAX_CUSTOM_ID_CHARS) throw refuse(number, `has a custom_id longer than ${MAX_CUSTOM_ID_CHARS} characters`);
    if (seen.has(customId)) throw refuse(number, `repeats custom_id "${customId}"`);
    seen.add(customId);
    if (method !== 'POST') throw refuse(number, 'must have method "POST"');
    if (url !== endpoint) throw refuse(number, `has url ${JSON.stringify(url)}; this batch's endpoint is "${endpoint}"`);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refuse(number, 'has no body object');
    return { index, customId, body: body as Record<string, unknown> };
  });
}
