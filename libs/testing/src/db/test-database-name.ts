import { randomBytes } from 'node:crypto';

/** Every database a test creates starts with this, so leftovers can be found and dropped. */
export const TEST_DATABASE_PREFIX = 'svc_test_';

/** `svc_test_<prefix>_<creation ms, base36>_<random>`: unique per run and per worker, dated. */
export function testDatabaseName(prefix: string, now = Date.now()): string {
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 24) || 'db';
  return `${TEST_DATABASE_PREFIX}${clean}_${now.toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** When a test database was created, from its name; null when the name is not one of ours. */
export function testDatabaseCreatedAt(name: string): number | null {
  const match = /^svc_test_.+_([0-9a-z]+)_[0-9a-f]{6}$/.exec(name);
  if (!match) return null;
  const ms = parseInt(match[1], 36);
  return Number.isFinite(ms) && ms > Date.UTC(2020, 0, 1) ? ms : null;
}
