import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '@svc/database';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { billingMigrationsDir } from '../../src/database/billing-migrations';

// The source files of apps/billing/prisma/functions against what the migrations leave in Postgres
// (tools/prisma/sql-functions.js compares them with the migrations' text; this, with the database).
const prismaDir = path.dirname(billingMigrationsDir());
const functionsDir = path.join(prismaDir, 'functions');
const script = path.join(__dirname, '../../../../tools/prisma/sql-functions.js');

/** The body of a source file's function: what Postgres keeps as prosrc. */
const bodyOf = (sql: string): string => {
  const match = /\$([A-Za-z_]\w*)?\$([\s\S]*?)\$\1?\$/.exec(sql.replace(/^(--.*\n)+/, ''));
  if (!match) throw new Error('no dollar-quoted body');
  return match[2];
};

async function functionsIn(url: string): Promise<{ name: string; body: string; args: number }[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; body: string; args: number }>(
      `SELECT p.proname AS name, p.prosrc AS body, p.pronargs AS args FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' ORDER BY p.proname`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe('billing SQL functions in the database', () => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it('after the migrations, are exactly the source files, body for body', async () => {
    db = await createTestDatabase('billing_fn', { migrationsDir: billingMigrationsDir() });
    const inDb = await functionsIn(db.url);
    const sources = readdirSync(functionsDir).filter((f) => f.endsWith('.sql'));
    expect(inDb.map((f) => `${f.name}.sql`)).toEqual(sources.sort());
    for (const { name, body } of inDb) expect({ name, body }).toEqual({ name, body: bodyOf(readFileSync(path.join(functionsDir, `${name}.sql`), 'utf8')) });
  });

  it('a generated migration applies, and replaces a function whose arguments changed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sql-functions-'));
    try {
      cpSync(prismaDir, dir, { recursive: true });
      const file = path.join(dir, 'functions/billing_x402_failed.sql');
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.replace('p_reason varchar)', 'p_reason varchar, p_code integer DEFAULT 0)'));
      const generated = spawnSync(process.execPath, [script, 'migration', dir, '--name', 'changed_x402_failed'], { encoding: 'utf8' });
      expect(generated.status).toBe(0);

      db = await createTestDatabase('billing_fn');
      await runMigrations({ databaseUrl: db.url, migrationsDir: path.join(dir, 'migrations'), createDatabase: false });
      expect((await functionsIn(db.url)).filter((f) => f.name === 'billing_x402_failed').map((f) => f.args)).toEqual([3]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
