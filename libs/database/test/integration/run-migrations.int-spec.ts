import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { dropDatabase, MigrationError, runMigrations } from '../../src';

// Not @svc/testing: a data-access lib may not depend on the testing lib (module boundaries).
// Same naming scheme, so the Jest global setup drops leftovers.
const pgServer = (process.env.TEST_PG_URL || 'postgresql://postgres@127.0.0.1:5432').replace(/\/+$/, '');
const testDatabaseUrl = () => `${pgServer}/svc_test_migrate_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

const dirs: string[] = [];
const urls: string[] = [];

afterAll(async () => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  await Promise.all(urls.map((u) => dropDatabase(u)));
});

/** A migrations folder in Prisma's layout, plus a not-yet-created database to run it against. */
function fixture(migrations: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-migrations-'));
  dirs.push(dir);
  const write = (name: string, sql: string) => {
    mkdirSync(path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, 'migration.sql'), sql);
  };
  Object.entries(migrations).forEach(([name, sql]) => write(name, sql));
  writeFileSync(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
  const databaseUrl = testDatabaseUrl();
  urls.push(databaseUrl);
  return { dir, databaseUrl, write };
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

const FIRST = '20260101000000_created_things';
const SECOND = '20260102000000_added_colour';
const SQL: Record<string, string> = {
  [FIRST]: 'CREATE TABLE "things" ("id" SERIAL PRIMARY KEY, "name" TEXT NOT NULL);\n',
  [SECOND]: 'ALTER TABLE "things" ADD COLUMN "colour" TEXT;\n',
};

describe('runMigrations', () => {
  it('creates the database, applies in order and records each migration like Prisma', async () => {
    const f = fixture(SQL);
    const result = await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir });
    expect(result).toEqual(expect.objectContaining({ createdDatabase: true, applied: [FIRST, SECOND], alreadyApplied: [] }));
    const rows = await query<Record<string, unknown>>(f.databaseUrl, 'SELECT * FROM _prisma_migrations ORDER BY migration_name');
    expect(rows).toEqual(
      [FIRST, SECOND].map((name) =>
        expect.objectContaining({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          migration_name: name,
          checksum: createHash('sha256').update(SQL[name]).digest('hex'),
          finished_at: expect.any(Date),
          started_at: expect.any(Date),
          logs: null,
          rolled_back_at: null,
          applied_steps_count: 1,
        }),
      ),
    );
    await query(f.databaseUrl, `INSERT INTO things (name, colour) VALUES ('a', 'red')`);
  });

  it('is a no-op the second time', async () => {
    const f = fixture(SQL);
    await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir });
    const again = await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir });
    expect(again).toEqual(expect.objectContaining({ createdDatabase: false, applied: [], alreadyApplied: [FIRST, SECOND] }));
    expect(await query(f.databaseUrl, 'SELECT 1 FROM _prisma_migrations')).toHaveLength(2);
  });

  it('applies only the migrations added since the last run', async () => {
    const f = fixture({ [FIRST]: SQL[FIRST] });
    await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir });
    f.write(SECOND, SQL[SECOND]);
    expect((await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir })).applied).toEqual([SECOND]);
  });

  it('refuses to continue when an applied migration was edited', async () => {
    const f = fixture({ [FIRST]: SQL[FIRST] });
    await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir });
    f.write(FIRST, `${SQL[FIRST]}-- tweaked\n`);
    f.write(SECOND, SQL[SECOND]);
    const err = await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect(err).toMatchObject({ code: 'CHECKSUM_CHANGED', migrations: [FIRST] });
    expect(await query(f.databaseUrl, `SELECT 1 FROM information_schema.columns WHERE table_name = 'things' AND column_name = 'colour'`)).toHaveLength(0);
  });

  it('rolls a failing migration back completely and records nothing for it', async () => {
    const f = fixture({ [FIRST]: SQL[FIRST], [SECOND]: 'ALTER TABLE "things" ADD COLUMN "colour" TEXT;\nSELECT no_such_function();\n' });
    const err = await runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'APPLY_FAILED', migrations: [SECOND] });
    expect((await query<{ migration_name: string }>(f.databaseUrl, 'SELECT migration_name FROM _prisma_migrations')).map((r) => r.migration_name)).toEqual([
      FIRST,
    ]);
    expect(await query(f.databaseUrl, `SELECT 1 FROM information_schema.columns WHERE table_name = 'things' AND column_name = 'colour'`)).toHaveLength(0);
  });

  it('lets concurrent runners (replicas starting together) apply each migration exactly once', async () => {
    const f = fixture({ [FIRST]: `SELECT pg_sleep(0.3);\n${SQL[FIRST]}`, [SECOND]: SQL[SECOND] });
    const results = await Promise.all(Array.from({ length: 4 }, () => runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir })));
    expect(results.flatMap((r) => r.applied).sort()).toEqual([FIRST, SECOND]);
    expect(await query(f.databaseUrl, 'SELECT 1 FROM _prisma_migrations')).toHaveLength(2);
  });

  it('names the folder that lacks migration.sql', async () => {
    const f = fixture(SQL);
    mkdirSync(path.join(f.dir, '20260103000000_empty'));
    await expect(runMigrations({ databaseUrl: f.databaseUrl, migrationsDir: f.dir })).rejects.toMatchObject({
      code: 'MISSING_SQL',
      migrations: ['20260103000000_empty'],
    });
  });
});
