import { schemaMismatch, schemaValidator } from './schema-check';

describe('checking answers against the whole schema', () => {
  const person = { type: 'object', properties: { age: { type: 'number', maximum: 120 }, code: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['age'] };

  it('names, by the schema, the first place an answer breaks what the grammar could not enforce', () => {
    const validate = schemaValidator(person, ['response_format']);
    expect(schemaMismatch(validate, '{"age": 30, "code": "ABC"}')).toBeUndefined();
    expect(schemaMismatch(validate, '{"age": 300}')).toBe('#/properties/age must be <= 120');
    expect(schemaMismatch(validate, '{"age": 1, "code": "abc"}')).toMatch(/^#\/properties\/code must match pattern/);
    expect(schemaMismatch(validate, '{"age": ')).toBe('the answer is not complete JSON');
  });

  it('checks formats, and reads draft-07 tuples and 2020-12 prefixItems', () => {
    expect(schemaMismatch(schemaValidator({ type: 'string', format: 'email' }, []), '"not-an-email"')).toMatch(/must match format "email"/);
    const tuple7 = schemaValidator(
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }], additionalItems: false },
      [],
    );
    expect(schemaMismatch(tuple7, '["a", 1]')).toBeDefined();
    const tuple2020 = schemaValidator({ type: 'array', prefixItems: [{ type: 'string' }], items: false }, []);
    expect(schemaMismatch(tuple2020, '["a"]')).toBeUndefined();
    expect(schemaMismatch(tuple2020, '["a", 1]')).toBeDefined();
  });

  it('answers 400 naming the place for a schema that does not compile', () => {
    expect(() => schemaValidator({ type: 'object', required: 'a' }, ['response_format', 'json_schema', 'schema'])).toThrow(
      /response_format\.json_schema\.schema: This JSON schema is not valid/,
    );
  });
});
