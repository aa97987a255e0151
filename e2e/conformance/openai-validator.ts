import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * OpenAI's component schemas (vendored by tools/openai-schemas/extract.mjs) compiled with Ajv, and
 * read the way OpenAPI 3.1 documents mean them. `validate` answers the ways a document breaks a
 * schema: a missing required field, a wrong type, a value outside an enum, ...
 */
export type SchemaName =
  | 'ListModelsResponse'
  | 'Model'
  | 'CreateChatCompletionResponse'
  | 'CreateChatCompletionStreamResponse'
  | 'CreateCompletionResponse'
  | 'CreateEmbeddingResponse'
  | 'ImagesResponse'
  | 'CreateTranscriptionResponseJson'
  | 'CreateTranscriptionResponseVerboseJson'
  | 'CreateTranslationResponseJson'
  | 'CreateTranslationResponseVerboseJson'
  | 'Response'
  | 'ResponseStreamEvent'
  | 'ErrorResponse';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

interface Vendored {
  source: { openapi: string; version: string };
  roots: string[];
  components: { schemas: Record<string, Schema> };
}

const REF = '#/components/schemas/';
const DOCUMENT_ID = 'openai.json';

export const vendored: Vendored = JSON.parse(readFileSync(path.join(__dirname, 'openai-schemas.json'), 'utf8'));

/**
 * OpenAPI's dialect in plain JSON Schema 2020-12, keyword by keyword:
 * - `nullable: true` (OpenAPI 3.0, left in a few 3.1 schemas) means the value may also be null;
 * - `$recursiveRef: "#"` (2019-09) points at the schema that holds `$recursiveAnchor`, here always
 *   the component schema itself.
 * Everything else is kept; `discriminator`, `optional` and `x-*` only annotate, and Ajv ignores them.
 */
export function toJsonSchema(node: Json, component: string): Json {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, component));
  if (node === null || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable' || key === '$recursiveAnchor') continue;
    if (key === '$recursiveRef') {
      if (value !== '#') throw new Error(`${component}: $recursiveRef ${String(value)} is not supported`);
      out.$ref = `${REF}${component}`;
    } else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, toJsonSchema(schema, component)]));
    } else out[key] = toJsonSchema(value, component);
  }
  return node.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

/** The one `type` value a component schema requires (itself or through `allOf`), when it requires exactly one. */
function discriminatorOf(schema: Json, components: Record<string, Json>, depth = 0): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || depth > 4) return undefined;
  if (typeof schema.$ref === 'string') return discriminatorOf(components[schema.$ref.slice(REF.length)], components, depth + 1);
  const type = (schema.properties as Record<string, Schema> | undefined)?.type;
  const values = type?.const !== undefined ? [type.const] : type?.enum;
  const required = Array.isArray(schema.required) && schema.required.includes('type');
  if (required && Array.isArray(values) && values.length === 1 && typeof values[0] === 'string') return values[0];
  const parts = Array.isArray(schema.allOf) ? schema.allOf : [];
  const found = [...new Set(parts.map((part) => discriminatorOf(part, components, depth + 1)).filter((v) => v !== undefined))];
  return found.length === 1 ? found[0] : undefined;
}

/**
 * A union (`anyOf`/`oneOf`) of component schemas that each require their own `type` value, as
 * OpenAI's output items and stream events are, rewritten as "the branch of the value's `type`":
 * the same values pass, but a failure names what is wrong in that branch instead of listing why
 * each of the other forty branches does not apply.
 */
export function byDiscriminator(node: Json, components: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((n) => byDiscriminator(n, components));
  if (node === null || typeof node !== 'object') return node;
  const out: Schema = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, byDiscriminator(value, components)]));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (!Array.isArray(branches) || branches.length < 2) continue;
    const refs = branches.map((b) => (b !== null && typeof b === 'object' && !Array.isArray(b) && typeof b.$ref === 'string' ? b.$ref : ''));
    const values = refs.map((ref) => (ref.startsWith(REF) ? discriminatorOf(components[ref.slice(REF.length)], components) : undefined));
    if (values.some((v) => v === undefined)) continue;
    const groups = new Map<string, Json[]>();
    values.forEach((value, i) => groups.set(value as string, [...(groups.get(value as string) ?? []), branches[i]]));
    delete out[keyword];
    const cases: Json[] = [...groups].map(([value, group]) => ({
      if: { properties: { type: { const: value } } },
      then: group.length === 1 ? group[0] : { [keyword]: group },
    }));
    out.allOf = [
      ...((out.allOf as Json[] | undefined) ?? []),
      { type: 'object', required: ['type'], properties: { type: { enum: [...groups.keys()] } } },
      ...cases,
    ];
  }
  return out;
}

function createAjv(): Ajv2020 {
  // strict: false ignores the annotation keywords OpenAPI adds (discriminator, x-stainless-*, ...);
  // allErrors reports every problem of a document, not only the first.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  // OpenAI's number formats and `unixtime` only name a representation: every number is valid.
  for (const format of ['float', 'double', 'int32', 'int64', 'unixtime']) ajv.addFormat(format, { type: 'number', validate: () => true });
  const plain = Object.fromEntries(Object.entries(vendored.components.schemas).map(([name, schema]) => [name, toJsonSchema(schema, name)]));
  const schemas = Object.fromEntries(Object.entries(plain).map(([name, schema]) => [name, byDiscriminator(schema, plain)]));
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas } });
  return ajv;
}

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function validatorOf(name: string): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    if (!(name in vendored.components.schemas)) throw new Error(`${name} is not vendored: add it to ROOTS in tools/openai-schemas/extract.mjs`);
    ajv ??= createAjv();
    fn = ajv.compile({ $ref: `${DOCUMENT_ID}${REF}${name}` });
    compiled.set(name, fn);
  }
  return fn;
}

/**
 * Where and how `value` breaks schema `name`, one line each (`<path>: <problem>`); empty when it
 * conforms. Array indices in paths are written `*`, so the same problem in the third chunk and the
 * fifth reads the same.
 */
export function validate(name: string, value: unknown): string[] {
  const fn = validatorOf(name);
  if (fn(value)) return [];
  return [...new Set(readable(fn.errors ?? []))].sort();
}

/** Ajv's errors as lines; `type` errors at one place are joined (`must be string | null`). */
function readable(errors: ErrorObject[]): string[] {
  const types = new Map<string, string[]>();
  const lines: string[] = [];
  for (const error of errors) {
    // An if/then (a union by `type`, see `byDiscriminator`) fails with its branch's own errors.
    if (error.keyword === 'if') continue;
    const where = error.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/';
    if (error.keyword === 'type') types.set(where, [...(types.get(where) ?? []), String((error.params as { type: unknown }).type)]);
    else if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') lines.push(`${where}: ${describe(error)}`);
  }
  // A union that failed says so only where nothing more precise was said.
  for (const union of errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) {
    const where = union.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/';
    const explained = [...types.keys(), ...lines.map((l) => l.slice(0, l.indexOf(': ')))].some(
      (w) => w === where || w.startsWith(`${where === '/' ? '' : where}/`),
    );
    if (!explained) lines.push(`${where}: ${describe(union)}`);
  }
  for (const [where, names] of types) lines.push(`${where}: must be ${[...new Set(names)].join(' | ')}`);
  return lines;
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `missing required field ${String(params.missingProperty)}`;
    case 'enum':
      return `must be one of ${JSON.stringify(params.allowedValues)}`;
    default:
      return error.message ?? error.keyword;
  }
}
