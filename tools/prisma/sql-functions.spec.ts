import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.join(__dirname, 'sql-functions.js');
const billingPrisma = path.join(__dirname, '../../apps/billing/prisma');

const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

describe('tools/prisma/sql-functions.js', () => {
  let dir: string;
  let prisma: string;
  const source = (name: string) => path.join(prisma, 'functions', `${name}.sql`);
  const edit = (name: string, from: string, to: string) => {
    const text = readFileSync(source(name), 'utf8');
    expect(text).toContain(from);
    writeFileSync(source(name), text.replace(from, to));
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sql-functions-'));
    prisma = path.join(dir, 'prisma');
    cpSync(path.join(billingPrisma, 'migrations'), path.join(prisma, 'migrations'), { recursive: true });
    cpSync(path.join(billingPrisma, 'functions'), path.join(prisma, 'functions'), { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on the repository: every function has its source file, equal to its last migration', () => {
    const result = run('check');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('names the function and its last migration when the source file differs', () => {
    edit('billing_settle', 'RETURN QUERY', 'RETURN  QUERY');
    const result = run('check', prisma);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/billing_settle: .*functions\/billing_settle\.sql differs .*20261125100000_undelivered_not_charged\/migration\.sql/);
    expect(result.stderr).toContain('RETURN  QUERY');
    expect(result.stderr).not.toMatch(/billing_settle_leased:/);
  });

  it('ignores trailing whitespace and the comment lines above the statement', () => {
    edit('billing_x402_settled', '-- The facilitator settled it', '-- Rewritten: the facilitator settled it');
    writeFileSync(source('billing_x402_settled'), readFileSync(source('billing_x402_settled'), 'utf8').replace(/\n/g, '  \n'));
    expect(run('check', prisma).status).toBe(0);
  });

  it('fails when a migration creates a function that has no source file', () => {
    unlinkSync(source('billing_reserve'));
    const result = run('check', prisma);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/billing_reserve: created by .*20261122093402_created_billing_ledger\/migration\.sql but has no source file/);
  });

  it('generates the migration of a changed source file, after which the check passes', () => {
    edit('billing_settle_leased', '(p_items jsonb, p_grace_ms integer)', '(p_items jsonb, p_grace_ms integer, p_strict boolean DEFAULT false)');
    edit('billing_x402_failed', 'BEGIN', 'BEGIN\n  -- a comment in the body');
    expect(run('check', prisma).status).toBe(1);

    const result = run('migration', prisma, '--name', 'changed_functions');
    expect(result.status).toBe(0);
    const [folder] = readdirSync(path.join(prisma, 'migrations')).filter((f) => f.endsWith('_changed_functions'));
    const sql = readFileSync(path.join(prisma, 'migrations', folder, 'migration.sql'), 'utf8');
    expect(sql).toContain('DROP FUNCTION "billing_settle_leased"(p_items jsonb, p_grace_ms integer);\nCREATE OR REPLACE FUNCTION "billing_settle_leased"(');
    expect(sql).toContain('CREATE OR REPLACE FUNCTION "billing_x402_failed"(');
    expect(sql).not.toContain('DROP FUNCTION "billing_x402_failed"');
    expect(sql).not.toContain('"billing_settle"(');
    expect(run('check', prisma).status).toBe(0);
    expect(run('migration', prisma).stderr).toBe('no function changes\n');
  });
});
