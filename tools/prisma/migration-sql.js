#!/usr/bin/env node
// Writes the SQL Prisma would generate for a schema change, offline of Prisma's binary host.
// Prisma 7's migrate commands need a native engine we cannot download; Prisma 6.19's WASM
// engine (`engine: "js"`) can diff two datamodels. It is installed on demand from npm into
// tmp/prisma-diff (never into the workspace). See apps/keys/README.md, "Changing the schema".
//
//   node tools/prisma/migration-sql.js <service> [--from <git-ref> | --from-empty] [--name <past_tense_name>]
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const PRISMA_6 = '6.19.3';
const root = path.resolve(__dirname, '../..');
const work = path.join(root, 'tmp/prisma-diff');
// Prisma 6's engine opens its adapter even to diff two files; it reads nothing from the database.
const pgUrl = process.env.TEST_PG_URL ? `${process.env.TEST_PG_URL.replace(/\/+$/, '')}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres';

function fail(message) {
  process.stderr.write(`migration-sql: ${message}\n`);
  process.exit(1);
}

function installPrisma6() {
  const pkg = path.join(work, 'node_modules/prisma/package.json');
  if (fs.existsSync(pkg) && require(pkg).version === PRISMA_6) return;
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, 'package.json'), '{ "private": true }\n');
  process.stderr.write(`installing prisma@${PRISMA_6} into ${path.relative(root, work)} (once)\n`);
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `prisma@${PRISMA_6}`, `@prisma/adapter-pg@${PRISMA_6}`, 'pg'], {
    cwd: work,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Prisma 6 wants the classic generator and a datasource url; neither changes the SQL. */
function forPrisma6(schema) {
  return schema
    .replace(/generator\s+\w+\s*{[^}]*}/m, 'generator client {\n  provider = "prisma-client-js"\n}')
    .replace(/(datasource\s+\w+\s*{[^}]*provider\s*=\s*"[^"]+")/m, '$1\n  url = "postgresql://127.0.0.1/unused"');
}

function main() {
  const { values, positionals } = parseArgs({
    options: { from: { type: 'string' }, 'from-empty': { type: 'boolean' }, name: { type: 'string' } },
    allowPositionals: true,
  });
  const [service] = positionals;
  if (!service) fail('usage: node tools/prisma/migration-sql.js <service> [--from <git-ref> | --from-empty] [--name <past_tense_name>]');
  const schemaPath = `apps/${service}/prisma/schema.prisma`;
  if (!fs.existsSync(path.join(root, schemaPath))) fail(`no ${schemaPath}`);
  if (values.name && !/^[a-z0-9_]+$/.test(values.name)) fail('--name must be lower_snake_case, e.g. added_key_labels');

  installPrisma6();
  fs.writeFileSync(path.join(work, 'to.prisma'), forPrisma6(fs.readFileSync(path.join(root, schemaPath), 'utf8')));
  const from = ['--from-empty'];
  if (!values['from-empty']) {
    const ref = values.from ?? 'HEAD';
    let old;
    try {
      old = execFileSync('git', ['show', `${ref}:${schemaPath}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      fail(`${schemaPath} is not in ${ref}; use --from-empty for a first migration or --from <ref>`);
    }
    fs.writeFileSync(path.join(work, 'from.prisma'), forPrisma6(old));
    from.splice(0, 1, '--from-schema-datamodel', 'from.prisma');
  }
  fs.writeFileSync(
    path.join(work, 'prisma.config.ts'),
    `import { defineConfig } from 'prisma/config';\nimport { PrismaPg } from '@prisma/adapter-pg';\n` +
      `export default defineConfig({ experimental: { adapter: true }, engine: 'js', schema: 'to.prisma', adapter: async () => new PrismaPg({ connectionString: ${JSON.stringify(pgUrl)} }) });\n`,
  );
  const env = {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
    PRISMA_QUERY_ENGINE_LIBRARY: process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  };
  const cli = path.join(work, 'node_modules/prisma/build/index.js');
  let raw;
  try {
    raw = execFileSync(process.execPath, [cli, 'migrate', 'diff', ...from, '--to-schema-datamodel', 'to.prisma', '--script'], {
      cwd: work,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  } catch {
    fail('prisma migrate diff failed (see above)');
  }
  // `migrate dev` diffs against a database that already has `public`; keep its output shape.
  const sql = `${raw.replace(/-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/, '').trimEnd()}\n`;
  if (/^-- This is an empty migration\.\s*$/.test(sql)) {
    process.stderr.write('no schema changes\n');
    return;
  }
  if (!values.name) {
    process.stdout.write(sql);
    return;
  }
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = path.join(root, `apps/${service}/prisma/migrations/${stamp}_${values.name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), sql);
  process.stderr.write(`wrote ${path.relative(root, dir)}/migration.sql\n`);
}

main();
