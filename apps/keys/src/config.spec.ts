import { ConfigError } from '@svc/config';
import { loadServiceConfig } from './config';

describe('keys config', () => {
  it('defaults to the local svc_keys database and no bootstrap key', () => {
    const config = loadServiceConfig({});
    expect(config.KEYS_DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/svc_keys');
    expect(config.SVC_ADMIN_KEY).toBeUndefined();
    expect(config.KEYS_MIGRATE_ON_BOOT).toBe(true);
  });

  it('treats an empty SVC_ADMIN_KEY as unset', () => {
    expect(loadServiceConfig({ SVC_ADMIN_KEY: '' }).SVC_ADMIN_KEY).toBeUndefined();
  });

  it('rejects a short SVC_ADMIN_KEY by name without echoing it', () => {
    const attempt = () => loadServiceConfig({ SVC_ADMIN_KEY: 'too-short-secret' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/SVC_ADMIN_KEY: must be at least 20 characters/);
    expect(attempt).not.toThrow(/too-short-secret/);
  });

  it('accepts a long enough SVC_ADMIN_KEY', () => {
    expect(loadServiceConfig({ SVC_ADMIN_KEY: 'x'.repeat(20) }).SVC_ADMIN_KEY).toBe('x'.repeat(20));
  });
});
