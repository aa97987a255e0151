import { z } from 'zod';
import { asRegex } from '../../../test/gbnf-sampler';
import { formatRule } from './format-rules';
import { ruleOf } from './grammar-rules';
import { toGrammarSchema } from './json-schema-subset';

/** Placeholder consts read back as their rules, so expectations stay readable. */
const readable = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema), (_k, v: unknown) =>
    v && typeof v === 'object' && 'const' in v && ruleOf(String(v.const)) ? { rule: ruleOf(String(v.const)) } : v,
  );

describe('JSON schema to the embedded grammar', () => {
  it('drops annotations and reads anyOf as oneOf', () => {
    const schema = {
      title: 'T',
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string', default: 'x' }, { type: 'null' }] } },
      required: ['a'],
      $schema: 'x',
    };
    expect(toGrammarSchema(schema, [])).toEqual({ type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['a'] });
  });

  it('takes a zod schema with .int().min().max(), .email(), .uuid() and dates: each becomes a grammar rule', () => {
    const schema = z.toJSONSchema(
      z.object({ age: z.number().int().min(0).max(120), email: z.email(), id: z.uuid(), born: z.iso.date(), n: z.number().int(), nick: z.string().nullable() }),
    );
    const grammar = readable(toGrammarSchema(schema, [])) as { properties: Record<string, { rule?: string }> };
    expect(grammar.properties.age.rule).toContain('"1"');
    expect(grammar.properties.email.rule).toContain('"@"');
    expect(grammar.properties.id.rule).toContain('[0-9a-f]{8}');
    expect(grammar.properties.born.rule).toContain('[0-9]{4}');
    // .int() alone is the safe-integer range: the plain integer grammar, checked after.
    expect(grammar.properties.n).toEqual({ type: 'integer' });
    expect(grammar.properties.nick).toEqual({ oneOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('lists a small integer range with multipleOf, and leaves pattern, number steps and unknown formats to the check after', () => {
    expect(toGrammarSchema({ type: 'integer', minimum: 0, maximum: 20, multipleOf: 5 }, [])).toEqual({ enum: [0, 5, 10, 15, 20] });
    expect(toGrammarSchema({ type: 'string', pattern: '^a', minLength: 2 }, [])).toEqual({ type: 'string', minLength: 2 });
    expect(toGrammarSchema({ type: 'string', format: 'ipv6', maxLength: 20 }, [])).toEqual({ type: 'string', maxLength: 20 });
    expect(toGrammarSchema({ type: 'array', items: { type: 'string' }, uniqueItems: true }, [])).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('keeps a length bound together with a format (issue 32: z.string().email().max(30) was a 5xx every time)', () => {
    const schema = z.toJSONSchema(z.object({ email: z.string().email().max(30), site: z.url().max(40), ip: z.ipv4(), when: z.iso.datetime() }));
    const grammar = readable(toGrammarSchema(schema, [])) as { properties: Record<string, { rule?: string }> };
    for (const key of ['email', 'site', 'ip', 'when']) expect([key, grammar.properties[key].rule]).toEqual([key, expect.any(String)]);
    // The same rule format-rules.spec.ts draws from: never longer than 30.
    expect(grammar.properties.email.rule).toBe(formatRule('email', undefined, 30, []));
    expect(() => toGrammarSchema({ type: 'string', format: 'email', maxLength: 4 }, ['x'])).toThrow(/x\.maxLength: No email string is shorter than 6/);
  });

  it('writes number ranges with no integer inside as fractions, and keeps item counts for node-llama-cpp', () => {
    const { rule } = readable(toGrammarSchema(z.toJSONSchema(z.number().positive().lt(1)), [])) as { rule: string };
    for (const [text, ok] of [
      ['0.01', true],
      ['0.99', true],
      ['0.00', false],
      ['1.00', false],
      ['0', false],
    ] as const)
      expect([text, asRegex(rule).test(text)]).toEqual([text, ok]);
    expect(readable(toGrammarSchema({ type: 'number', minimum: -0.8, maximum: -0.2 }, []))).toEqual({ rule: expect.stringMatching(/^"-" "0" "\."/) });
    const list = toGrammarSchema({ type: 'array', items: { type: 'string', format: 'email', maxLength: 20 }, minItems: 2, maxItems: 3 }, []);
    expect(readable(list)).toEqual({ type: 'array', items: { rule: expect.stringContaining('"@"') }, minItems: 2, maxItems: 3 });
  });

  it('reads exclusive bounds (2020-12 numbers and draft-4 booleans) as inclusive integer ranges', () => {
    const a = readable(toGrammarSchema({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 }, []));
    const b = readable(toGrammarSchema({ type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true }, []));
    expect(a).toEqual({ rule: '[1-9]' });
    expect(b).toEqual(a);
  });

  it('merges allOf, spreads type arrays, inlines local pointers and renames definitions', () => {
    expect(
      toGrammarSchema(
        {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'boolean' } }, required: ['b'] },
          ],
        },
        [],
      ),
    ).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean' } }, required: ['a', 'b'] });
    expect(toGrammarSchema({ type: ['string', 'null'], maxLength: 3 }, [])).toEqual({ oneOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] });
    expect(
      toGrammarSchema(
        {
          type: 'object',
          properties: { a: { type: 'boolean' }, b: { $ref: '#/properties/a' }, c: { $ref: '#/definitions/x' } },
          definitions: { x: { type: 'null' } },
        },
        [],
      ),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'boolean' }, b: { type: 'boolean' }, c: { $ref: '#/$defs/x' } },
      $defs: { x: { type: 'null' } },
    });
  });

  it('reads an empty schema as any JSON value, not null', () => {
    expect(toGrammarSchema({ type: 'object', properties: { v: {} } }, [])).toEqual({
      type: 'object',
      properties: { v: { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }] } },
    });
  });

  it.each([
    [{ type: 'strange' }, /x\.type: Unknown JSON schema type/],
    [{ type: 'object', properties: { n: false } }, /x\.properties\.n: The schema false matches nothing/],
    [{ type: 'integer', minimum: 5, maximum: 4 }, /No integer lies between 5 and 4/],
    [{ type: 'string', minLength: 5, maxLength: 4 }, /no string fits/],
    [{ $ref: 'https://example.com/s.json' }, /leaves the schema/],
    [{ type: 'object', properties: { a: { $ref: '#/properties/a' } } }, /is recursive/],
    [{ anyOf: [] }, /anyOf must be a non-empty array/],
  ])('answers 400 for %j, which nothing can satisfy or the engine cannot follow', (schema, message) => {
    expect(() => toGrammarSchema(schema, ['x'])).toThrow(message);
  });
});
