import { testDatabaseCreatedAt, testDatabaseName } from './test-database-name';

describe('test database names', () => {
  it('are valid unquoted Postgres identifiers under 63 bytes, even from odd prefixes', () => {
    const name = testDatabaseName('Keys Service/Integration-Tests-With-A-Very-Long-Name');
    expect(name).toMatch(/^svc_test_[a-z0-9_]+$/);
    expect(name.length).toBeLessThanOrEqual(63);
  });

  it('differ between calls in the same millisecond', () => {
    const now = Date.now();
    expect(testDatabaseName('keys', now)).not.toBe(testDatabaseName('keys', now));
  });

  it('carry their creation time', () => {
    const now = Date.UTC(2026, 10, 22, 9, 0, 0);
    expect(testDatabaseCreatedAt(testDatabaseName('keys', now))).toBe(now);
    expect(testDatabaseCreatedAt(`svc_test_e2e_keys_${now.toString(36)}_a1b2c3`)).toBe(now);
  });

  it('do not claim databases that are not test databases', () => {
    expect(testDatabaseCreatedAt('svc_keys')).toBeNull();
    expect(testDatabaseCreatedAt('svc_test_handmade')).toBeNull();
  });
});
