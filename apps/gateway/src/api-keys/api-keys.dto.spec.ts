import { domainErrorOf } from '@svc/testing';
import { parseBody } from '../http/parse-body';
import { createKeySchema, updateKeySchema } from './api-keys.dto';

describe('API key bodies', () => {
  it('refuses a NUL in the description with a 400 naming the field (Postgres text cannot hold it)', () => {
    const created = domainErrorOf(() => parseBody(createKeySchema, { apiKeyType: 'INFERENCE', description: 'ops\u0000' }));
    expect(created.status).toBe(400);
    expect(created.details).toMatchObject({ description: { _errors: ['must not contain NUL characters (\\u0000)'] } });
    const updated = domainErrorOf(() => parseBody(updateKeySchema, { id: 'k1', description: '\u0000' }));
    expect(updated.details).toMatchObject({ description: { _errors: ['must not contain NUL characters (\\u0000)'] } });
  });

  it('still takes other text, and bounds the length', () => {
    expect(parseBody(createKeySchema, { apiKeyType: 'ADMIN', description: 'ops \u00e9\t\u{1f511}' }).description).toBe('ops \u00e9\t\u{1f511}');
    expect(domainErrorOf(() => parseBody(createKeySchema, { apiKeyType: 'ADMIN', description: 'x'.repeat(65) })).details).toMatchObject({
      description: { _errors: ['must be at most 64 characters'] },
    });
  });
});
