import { ConfigError } from '@svc/config';
import { databaseUrlOf } from './migrate-all';
import { SERVICE_DATABASES } from './service-databases';

const keys = SERVICE_DATABASES.find((t) => t.service === 'keys')!;

describe('databaseUrlOf', () => {
  it('uses the same variable and default as the service', () => {
    expect(databaseUrlOf(keys, {})).toBe('postgresql://postgres@127.0.0.1:5432/svc_keys');
    expect(databaseUrlOf(keys, { KEYS_DATABASE_URL: 'postgresql://db.internal/keys' })).toBe('postgresql://db.internal/keys');
  });

  it('names the variable when its value is not a Postgres URL', () => {
    expect(() => databaseUrlOf(keys, { KEYS_DATABASE_URL: 'mysql://x/y' })).toThrow(ConfigError);
    expect(() => databaseUrlOf(keys, { KEYS_DATABASE_URL: 'mysql://x/y' })).toThrow(/KEYS_DATABASE_URL/);
  });
});
