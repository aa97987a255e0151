import { toGrammarSchema } from './json-schema-subset';

describe('JSON schema subset for grammars', () => {
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

  it.each([
    [{ type: 'strange' }, /Unknown JSON schema type/],
    [{ type: 'string', pattern: '^a' }, /keyword "pattern"/],
    [{ type: 'object', properties: { n: { type: 'number', minimum: 1 } } }, /x\.properties\.n\.minimum: .*"minimum"/],
    [{ allOf: [] }, /"allOf"/],
    [{ type: 'string', format: 'email' }, /format "email"/],
  ])('refuses %j with a 400 naming the keyword', (schema, message) => {
    expect(() => toGrammarSchema(schema, ['x'])).toThrow(message);
  });
});
