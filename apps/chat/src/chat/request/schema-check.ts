import Ajv, { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { detailsFromIssues, DomainError, ErrorCode, errorMessage, summarizeIssues } from '@svc/errors';
import { fieldError } from './content-parts';

/** Compiled validators by schema text: compiling costs more than checking one answer. */
const validators = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 200;
const options = { strict: false, allErrors: false, logger: false as const };
const draft2020 = addFormats(new Ajv2020(options));
const draft7 = addFormats(new Ajv(options));

/**
 * Compiles a request's JSON schema for checking answers against it (the keywords a grammar
 * cannot enforce are checked here). A schema that does not compile is a 400 naming `path`.
 * Draft-07 schemas (by `$schema`, or tuple `items` arrays) use draft-07 rules, the rest 2020-12.
 */
export function schemaValidator(schema: Record<string, unknown>, path: Array<string | number>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (validate) return validate;
  const { $schema, $id: _id, ...body } = schema;
  const ajv = /draft-0[4-7]/.test(String($schema ?? '')) || /"items":\[/.test(key) ? draft7 : draft2020;
  try {
    validate = ajv.compile(body);
  } catch (err) {
    throw fieldError(path, `This JSON schema is not valid: ${errorMessage(err)}`);
  }
  if (validators.size >= CACHE_LIMIT) validators.delete(validators.keys().next().value!);
  validators.set(key, validate);
  return validate;
}

/**
 * Why `text` does not match the schema, or undefined when it does. The place is named by the
 * schema ("#/properties/age must be <= 120"), never by the answer: ajv's messages carry schema
 * values only, so no generated text reaches an error message or a log.
 */
export function schemaMismatch(validate: ValidateFunction, text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the answer is not complete JSON';
  }
  if (validate(value)) return undefined;
  const error = validate.errors?.[0];
  if (!error) return 'does not match';
  const place = error.schemaPath.split('/').slice(0, -1).join('/') || '#';
  return `${place} ${error.message ?? 'does not match'}`;
}

/**
 * The model's answer missed what its grammar could not enforce, twice (docs/chat.md, "Structured
 * output"): a 400 naming the schema's field, not a 5xx, since the same request is no likelier to
 * pass on a retry and every SDK retries a 5xx. A `fallbacks` model still gets the request.
 */
export class AnswerMismatchError extends DomainError {
  constructor(path: Array<string | number>, mismatch: string) {
    const message =
      `The model's answer did not match this JSON schema twice: ${mismatch}. On this model the grammar enforces types, enums, ` +
      'lengths, item counts, number ranges and the email, uri, hostname, ipv4, uuid, date, time and date-time formats; ' +
      'the rest (pattern, uniqueItems, not, other formats, ...) is only checked after generation: loosen it, or use a model with native structured output.';
    super(ErrorCode.Validation, summarizeIssues([{ path, message }]), detailsFromIssues([{ path, message }]));
  }
}
