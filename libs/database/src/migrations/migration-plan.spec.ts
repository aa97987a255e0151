import { MigrationError } from './migration-error';
import { checksumOf, MigrationFile } from './migration-files';
import { MigrationRow, planMigrations } from './migration-plan';

const file = (name: string, sql = `-- ${name}`): MigrationFile => ({ name, sql, checksum: checksumOf(sql) });
const done = (m: MigrationFile, checksum = m.checksum): MigrationRow => ({ migrationName: m.name, checksum, finishedAt: new Date(), rolledBackAt: null });
const a = file('20260101000000_a');
const b = file('20260102000000_b');

function errorOf(fn: () => unknown): MigrationError {
  try {
    fn();
  } catch (err) {
    return err as MigrationError;
  }
  throw new Error('expected an error');
}

describe('planMigrations', () => {
  it('applies everything on an empty database, in order', () => {
    expect(planMigrations([a, b], []).pending.map((m) => m.name)).toEqual([a.name, b.name]);
  });

  it('applies only what is missing', () => {
    const plan = planMigrations([a, b], [done(a)]);
    expect(plan.pending.map((m) => m.name)).toEqual([b.name]);
    expect(plan.applied).toEqual([a.name]);
  });

  it('refuses when an applied migration was edited', () => {
    const err = errorOf(() => planMigrations([a, b], [done(a, checksumOf('something else'))]));
    expect(err.code).toBe('CHECKSUM_CHANGED');
    expect(err.migrations).toEqual([a.name]);
  });

  it('refuses while a failed migration is unresolved', () => {
    const failed: MigrationRow = { migrationName: b.name, checksum: b.checksum, finishedAt: null, rolledBackAt: null };
    expect(errorOf(() => planMigrations([a, b], [done(a), failed])).code).toBe('FAILED_MIGRATION');
  });

  it('re-applies a migration whose only record was rolled back', () => {
    const rolledBack: MigrationRow = { migrationName: a.name, checksum: a.checksum, finishedAt: null, rolledBackAt: new Date() };
    expect(planMigrations([a], [rolledBack]).pending.map((m) => m.name)).toEqual([a.name]);
  });

  it('reports migrations the database has but the code does not', () => {
    expect(planMigrations([a], [done(a), done(b)]).unknown).toEqual([b.name]);
  });
});
