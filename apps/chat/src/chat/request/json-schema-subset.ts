import { fieldError } from './content-parts';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
/** Keywords the llama.cpp grammar builder enforces. */
const ENFORCED = new Set([
  'type',
  'const',
  'enum',
  'oneOf',
  'properties',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'required',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'format',
  'description',
  '$defs',
  '$ref',
]);
/** Annotations with no effect on validity: dropped. */
const ANNOTATIONS = new Set(['title', 'default', 'examples', '$schema', '$id', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const FORMATS = new Set(['date-time', 'time', 'date']);

/**
 * Checks a response_format / tool parameters JSON schema against what the embedded engine can
 * enforce with a grammar, and returns it normalised (annotations dropped, `anyOf` read as
 * `oneOf`: for generation they are the same). A keyword the grammar cannot enforce (pattern,
 * minimum, allOf, ...) is a 400 naming it, rather than output that might not match.
 */
export function toGrammarSchema(schema: unknown, path: Array<string | number>): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw fieldError(path, 'A JSON schema must be an object.');
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema as Record<string, unknown>)) {
    const at = [...path, keyword];
    if (ANNOTATIONS.has(keyword)) continue;
    const name = keyword === 'anyOf' ? 'oneOf' : keyword;
    if (!ENFORCED.has(name)) throw fieldError(at, `JSON schema keyword "${keyword}" cannot be enforced on this model; remove it.`);
    switch (name) {
      case 'type': {
        const types = Array.isArray(value) ? value : [value];
        if (types.length === 0 || !types.every((t) => typeof t === 'string' && TYPES.has(t)))
          throw fieldError(at, `Unknown JSON schema type ${JSON.stringify(value)}.`);
        out.type = value;
        break;
      }
      case 'format':
        if (!FORMATS.has(value as string))
          throw fieldError(at, `JSON schema format "${String(value)}" cannot be enforced on this model (date-time, time and date can).`);
        out.format = value;
        break;
      case 'oneOf':
      case 'prefixItems':
        if (!Array.isArray(value) || value.length === 0) throw fieldError(at, `${keyword} must be a non-empty array of schemas.`);
        out[name] = value.map((s, i) => toGrammarSchema(s, [...at, i]));
        break;
      case 'properties':
      case '$defs':
        out[name] = Object.fromEntries(Object.entries(asObject(value, at)).map(([k, s]) => [k, toGrammarSchema(s, [...at, k])]));
        break;
      case 'items':
        out.items = toGrammarSchema(value, at);
        break;
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : toGrammarSchema(value, at);
        break;
      default:
        out[name] = value;
    }
  }
  return out;
}

function asObject(value: unknown, path: Array<string | number>): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fieldError(path, 'Must be an object of schemas.');
  return value as Record<string, unknown>;
}
