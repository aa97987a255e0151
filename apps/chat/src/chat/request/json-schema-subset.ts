import { fieldError } from './content-parts';
import { formatRule } from './format-rules';
import { fractionRangeRule, integerRangeRule, NumberBound, numberRangeRule, ruleNode } from './grammar-rules';

type Schema = Record<string, unknown>;
type Path = Array<string | number>;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
/** Any JSON value (node-llama-cpp reads an empty schema as `null`). */
const ANY: Schema = { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }] };
/** More integers than this in a range with multipleOf: validated after generation instead of listed. */
const MAX_LISTED = 256;

/**
 * The grammar for a response_format / tool parameters JSON schema on the embedded engine
 * (docs/chat.md, "Structured outputs"): the schema rewritten into what node-llama-cpp's grammar
 * builder takes, plus our own rules for number ranges (grammar-rules.ts) and for string formats
 * together with their length bounds (format-rules.ts). What no grammar says (pattern, other
 * formats, uniqueItems, not, ...) is left out here and checked on the output (schema-check.ts).
 * A 400 naming the place is only for a schema nothing can satisfy or the engine cannot follow (a
 * malformed type, a `false` schema, an empty integer range, a format no string of the allowed
 * lengths has, a reference that leaves the document).
 */
export function toGrammarSchema(schema: unknown, path: Path): Schema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw fieldError(path, 'A JSON schema must be an object.');
  return new Converter(schema as Schema).convert(schema, path);
}

class Converter {
  private readonly resolving = new Set<string>();

  constructor(private readonly root: Schema) {}

  convert(node: unknown, at: Path): Schema {
    if (node === true) return ANY;
    if (node === false) throw fieldError(at, 'The schema false matches nothing.');
    if (typeof node !== 'object' || node === null || Array.isArray(node)) throw fieldError(at, 'A JSON schema must be an object or a boolean.');
    const s = node as Schema;
    const defs = this.defs(s, at);
    return defs ? { ...this.node(s, at), $defs: defs } : this.node(s, at);
  }

  private node(s: Schema, at: Path): Schema {
    if (typeof s.$ref === 'string') return this.ref(s.$ref, [...at, '$ref']);
    if (Array.isArray(s.allOf)) {
      const { allOf, $defs: _d, definitions: _x, ...rest } = s;
      return this.convert(
        (allOf as unknown[]).reduce<Schema>((merged, part) => merge(merged, part), rest),
        at,
      );
    }
    const branches = s.anyOf ?? s.oneOf;
    if (branches !== undefined) {
      const key = s.anyOf !== undefined ? 'anyOf' : 'oneOf';
      if (!Array.isArray(branches) || branches.length === 0) throw fieldError([...at, key], `${key} must be a non-empty array of schemas.`);
      const { anyOf: _a, oneOf: _o, $defs: _d, definitions: _x, ...rest } = s;
      return oneOf(branches.map((b, i) => this.convert(merge(rest, b), [...at, key, i])));
    }
    if ('const' in s) return literal(s.const);
    if (s.enum !== undefined) {
      if (!Array.isArray(s.enum) || s.enum.length === 0) throw fieldError([...at, 'enum'], 'enum must be a non-empty array.');
      return s.enum.every(isPrimitive) ? { enum: s.enum } : oneOf(s.enum.map(literal));
    }
    const types = typesOf(s, at);
    if (types.length === 0) return ANY;
    return oneOf(types.map((type) => this.typed(type, s, at)));
  }

  private typed(type: string, s: Schema, at: Path): Schema {
    switch (type) {
      case 'string':
        return stringSchema(s, at);
      case 'integer':
        return integerSchema(s, at);
      case 'number':
        return numberSchema(s);
      case 'object':
        return this.object(s, at);
      case 'array':
        return this.array(s, at);
      default:
        return { type };
    }
  }

  private object(s: Schema, at: Path): Schema {
    const out: Schema = { type: 'object' };
    if (s.properties !== undefined) out.properties = this.map(s.properties, [...at, 'properties']);
    if (Array.isArray(s.required)) out.required = s.required;
    if (s.additionalProperties !== undefined)
      out.additionalProperties =
        typeof s.additionalProperties === 'boolean' ? s.additionalProperties : this.convert(s.additionalProperties, [...at, 'additionalProperties']);
    else if (s.properties === undefined) out.additionalProperties = true;
    for (const k of ['minProperties', 'maxProperties']) if (typeof s[k] === 'number') out[k] = s[k];
    return out;
  }

  private array(s: Schema, at: Path): Schema {
    const out: Schema = { type: 'array' };
    // Draft 4-7 tuples: items as an array.
    const prefix = Array.isArray(s.items) ? s.items : s.prefixItems;
    if (prefix !== undefined) {
      if (!Array.isArray(prefix)) throw fieldError([...at, 'prefixItems'], 'prefixItems must be an array of schemas.');
      out.prefixItems = prefix.map((p, i) => this.convert(p, [...at, 'prefixItems', i]));
    }
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
    if (rest !== undefined && rest !== true) out.items = this.convert(rest, [...at, 'items']);
    for (const k of ['minItems', 'maxItems']) if (typeof s[k] === 'number') out[k] = s[k];
    return out;
  }

  private map(value: unknown, at: Path): Record<string, Schema> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fieldError(at, 'Must be an object of schemas.');
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.convert(v, [...at, k])]));
  }

  /** `$defs` (and draft-7 `definitions`, renamed) of a node, converted. */
  private defs(s: Schema, at: Path): Record<string, Schema> | undefined {
    const all = { ...(s.definitions as Schema | undefined), ...(s.$defs as Schema | undefined) };
    if (s.definitions === undefined && s.$defs === undefined) return undefined;
    return this.map(all, [...at, s.$defs !== undefined ? '$defs' : 'definitions']);
  }

  /** `#/$defs/x` and `#/definitions/x` stay references (recursion works); other local pointers are inlined. */
  private ref(ref: string, at: Path): Schema {
    const named = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (named) return { $ref: `#/$defs/${named[1]}` };
    if (!ref.startsWith('#')) throw fieldError(at, `The reference ${ref} leaves the schema; put the definition under $defs.`);
    if (this.resolving.has(ref)) throw fieldError(at, `The reference ${ref} is recursive; put the recursive part under $defs.`);
    const target = ref
      .slice(1)
      .split('/')
      .slice(1)
      .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Schema)[key] : undefined), this.root);
    if (target === undefined) throw fieldError(at, `The reference ${ref} points nowhere in this schema.`);
    this.resolving.add(ref);
    try {
      const { $defs: _d, definitions: _x, ...body } = target as Schema;
      return this.convert(body, at);
    } finally {
      this.resolving.delete(ref);
    }
  }
}

function stringSchema(s: Schema, at: Path): Schema {
  const format = typeof s.format === 'string' ? s.format : undefined;
  const [min, max] = [s.minLength, s.maxLength];
  if (typeof min === 'number' && typeof max === 'number' && min > max) throw fieldError([...at, 'minLength'], 'minLength is above maxLength: no string fits.');
  const out: Schema = { type: 'string' };
  if (typeof min === 'number') out.minLength = min;
  if (typeof max === 'number') out.maxLength = max;
  const rule = format && formatRule(format, out.minLength as number | undefined, out.maxLength as number | undefined, at);
  return rule ? ruleNode(rule) : out;
}

function integerSchema(s: Schema, at: Path): Schema {
  const { min, max } = integerBounds(s);
  if (min !== undefined && max !== undefined && min > max) throw fieldError([...at, 'minimum'], `No integer lies between ${min} and ${max}.`);
  const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (step !== undefined && min !== undefined && max !== undefined && max - min < BigInt(MAX_LISTED)) {
    const listed: number[] = [];
    for (let v = min; v <= max; v++) if (Number.isInteger(Number(v) / step)) listed.push(Number(v));
    if (listed.length === 0) throw fieldError([...at, 'multipleOf'], `No multiple of ${step} lies between ${min} and ${max}.`);
    return { enum: listed };
  }
  const rule = integerRangeRule(min, max);
  return rule ? ruleNode(rule) : { type: 'integer' };
}

function numberSchema(s: Schema): Schema {
  const { min, max } = integerBounds(s);
  if (min !== undefined && max !== undefined && min > max) {
    // No integer in range: one integer part and a fraction (else checked after).
    const { lo, hi } = numberBounds(s);
    const rule = lo && hi ? fractionRangeRule(lo, hi) : undefined;
    return rule ? ruleNode(rule) : { type: 'number' };
  }
  const rule = numberRangeRule(min, max);
  return rule ? ruleNode(rule) : { type: 'number' };
}

/** The tightest lower and upper bounds of a number node, each with whether it is excluded. */
function numberBounds(s: Schema): { lo?: NumberBound; hi?: NumberBound } {
  const candidates = (value: unknown, exclusive: unknown): NumberBound[] => {
    const found: NumberBound[] = [];
    if (typeof value === 'number' && Number.isFinite(value)) found.push({ value, exclusive: exclusive === true }); // draft 4: a boolean beside the bound
    if (typeof exclusive === 'number' && Number.isFinite(exclusive)) found.push({ value: exclusive, exclusive: true });
    return found;
  };
  const pick = (bounds: NumberBound[], side: 'lo' | 'hi'): NumberBound | undefined =>
    bounds.reduce<NumberBound | undefined>((best, b) => {
      if (!best) return b;
      if (b.value !== best.value) return (side === 'lo' ? b.value > best.value : b.value < best.value) ? b : best;
      return b.exclusive ? b : best;
    }, undefined);
  return {
    lo: pick(candidates(s.minimum, s.exclusiveMinimum), 'lo'),
    hi: pick(candidates(s.maximum, s.exclusiveMaximum), 'hi'),
  };
}

/** Inclusive integer bounds from minimum/maximum and exclusiveMinimum/exclusiveMaximum (numbers, or draft-4 booleans). */
function integerBounds(s: Schema): { min?: bigint; max?: bigint } {
  const bound = (value: unknown, exclusive: unknown, side: 'min' | 'max'): bigint | undefined => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
    if (side === 'min') return exclusive === true ? BigInt(Math.floor(value)) + 1n : BigInt(Math.ceil(value));
    return exclusive === true ? BigInt(Math.ceil(value)) - 1n : BigInt(Math.floor(value));
  };
  const tighter = (a: bigint | undefined, b: bigint | undefined, side: 'min' | 'max'): bigint | undefined =>
    a === undefined ? b : b === undefined ? a : (side === 'min' ? a > b : a < b) ? a : b;
  const min = tighter(bound(s.minimum, s.exclusiveMinimum, 'min'), bound(s.exclusiveMinimum, true, 'min'), 'min');
  const max = tighter(bound(s.maximum, s.exclusiveMaximum, 'max'), bound(s.exclusiveMaximum, true, 'max'), 'max');
  return { min, max };
}

/** The types a node allows: its `type`, or the one its keywords imply, or none (any value). */
function typesOf(s: Schema, at: Path): string[] {
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.length === 0 || !types.every((t) => typeof t === 'string' && TYPES.has(t)))
      throw fieldError([...at, 'type'], `Unknown JSON schema type ${JSON.stringify(s.type)}.`);
    return types as string[];
  }
  const has = (...keys: string[]): boolean => keys.some((k) => s[k] !== undefined);
  if (has('properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties')) return ['object'];
  if (has('items', 'prefixItems', 'minItems', 'maxItems')) return ['array'];
  if (has('minLength', 'maxLength', 'format', 'pattern')) return ['string'];
  if (has('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf')) return ['number'];
  return [];
}

/** Shallow merge of two schema nodes (allOf parts, an anyOf branch over its parent): properties and required combined. */
function merge(base: Schema, part: unknown): Schema {
  if (part === true || typeof part !== 'object' || part === null) return base;
  const p = part as Schema;
  const out: Schema = { ...base, ...p };
  if (base.properties && p.properties) out.properties = { ...(base.properties as Schema), ...(p.properties as Schema) };
  if (Array.isArray(base.required) && Array.isArray(p.required)) out.required = [...new Set([...base.required, ...p.required])];
  return out;
}

function oneOf(schemas: Schema[]): Schema {
  return schemas.length === 1 ? schemas[0] : { oneOf: schemas };
}

const isPrimitive = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** A schema matching exactly one JSON value. */
function literal(value: unknown): Schema {
  if (isPrimitive(value)) return { const: value };
  if (Array.isArray(value)) return { type: 'array', prefixItems: value.map(literal), minItems: value.length, maxItems: value.length };
  const entries = Object.entries(value as Schema);
  return {
    type: 'object',
    properties: Object.fromEntries(entries.map(([k, v]) => [k, literal(v)])),
    required: entries.map(([k]) => k),
    additionalProperties: false,
  };
}
