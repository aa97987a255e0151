#!/usr/bin/env node
// Keeps each SQL function of a service in one source file, apps/<svc>/prisma/functions/<name>.sql,
// and its migrations in step with it (apps/billing/prisma/functions/README.md).
//
//   node tools/prisma/sql-functions.js check [<service>...]
//     For every function the migrations create, the last migration's CREATE statement must equal
//     functions/<name>.sql. Default: every apps/*/prisma with migrations. Exit 1 on a mismatch.
//   node tools/prisma/sql-functions.js migration <service> [--name <past_tense_name>]
//     The SQL that brings the database to functions/: CREATE OR REPLACE for each new or changed
//     source file, after a DROP FUNCTION where its arguments or return type changed. With --name,
//     written as a new migration folder; without, printed. The functions' comments stay in functions/:
//     add above the generated SQL why they changed.
// <service> is an app name (billing) or the path of a prisma folder.
//
// Compared: the CREATE statement only, without the comment lines above it (they never reach the
// database), trailing whitespace, and the OR REPLACE keyword (the generated migration needs it, the
// stored function is the same).
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const root = path.resolve(__dirname, '../..');
const rel = (file) => path.relative(process.cwd(), file) || '.';

/** Splits SQL into statements, honouring comments, quotes and dollar quotes. */
function statements(sql) {
  const out = [];
  let start = -1;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (start < 0) start = i;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end + 1; // '' and "" escapes read as two adjacent quoted parts
      continue;
    }
    const tag = c === '$' && /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
    if (tag) {
      const end = sql.indexOf(tag[0], i + tag[0].length);
      i = end < 0 ? sql.length : end + tag[0].length;
      continue;
    }
    i++;
    if (c === ';') {
      out.push({ start, end: i, text: sql.slice(start, i) });
      start = -1;
    }
  }
  if (start >= 0 && sql.slice(start).trim()) out.push({ start, end: sql.length, text: sql.slice(start).trimEnd() });
  return out;
}

const CREATE = /^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:"?public"?\.)?"?([A-Za-z_][A-Za-z0-9_]*)"?\s*\(/i;
const DROP = /^DROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?(?:"?public"?\.)?"?([A-Za-z_][A-Za-z0-9_]*)"?/i;

/** What one migration does to functions, in order: { op: 'create' | 'drop', name, text }. */
function functionOps(sql) {
  return statements(sql).flatMap(({ text }) => {
    const created = CREATE.exec(text);
    if (created) return [{ op: 'create', name: created[1], text }];
    const dropped = DROP.exec(text);
    return dropped ? [{ op: 'drop', name: dropped[1], text }] : [];
  });
}

/** The CREATE statement of a source file: what follows its leading comment lines. */
function sourceStatement(text) {
  const found = statements(text).filter((s) => CREATE.test(s.text));
  if (found.length !== 1) return null;
  return text.slice(found[0].start);
}

function normalize(text) {
  return text
    .replace(/^CREATE\s+OR\s+REPLACE\s+FUNCTION\b/i, 'CREATE FUNCTION')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trimEnd();
}

function firstDifference(a, b) {
  const [left, right] = [a.split('\n'), b.split('\n')];
  for (let n = 0; n < Math.max(left.length, right.length); n++) {
    if (left[n] !== right[n]) return { line: n + 1, source: left[n] ?? '(end)', migration: right[n] ?? '(end)' };
  }
  return null;
}

/** Each function as the migrations leave it: name -> { migration, text } (text null when dropped). */
function migratedFunctions(prismaDir) {
  const dir = path.join(prismaDir, 'migrations');
  const current = new Map();
  const folders = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => fs.existsSync(path.join(dir, f, 'migration.sql'))) : [];
  for (const folder of folders.sort()) {
    const file = path.join(dir, folder, 'migration.sql');
    for (const { op, name, text } of functionOps(fs.readFileSync(file, 'utf8'))) {
      current.set(name, { migration: file, text: op === 'create' ? text : null });
    }
  }
  return current;
}

/** Source files: name -> { file, text }. */
function sourceFunctions(prismaDir) {
  const dir = path.join(prismaDir, 'functions');
  const sources = new Map();
  if (!fs.existsSync(dir)) return sources;
  for (const entry of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const file = path.join(dir, entry);
    sources.set(path.basename(entry, '.sql'), { file, text: fs.readFileSync(file, 'utf8') });
  }
  return sources;
}

/** Problems found in one prisma folder, as messages; none when source files and migrations agree. */
function check(prismaDir) {
  const service = path.basename(path.dirname(prismaDir));
  const arg = prismaDirOf(service) === prismaDir ? service : rel(prismaDir);
  const fix = `write the change in functions/ and run \`node tools/prisma/sql-functions.js migration ${arg} --name <past_tense_name>\``;
  const migrated = migratedFunctions(prismaDir);
  const sources = sourceFunctions(prismaDir);
  const problems = [];
  for (const [name, { migration, text }] of migrated) {
    const source = sources.get(name);
    const expected = rel(path.join(prismaDir, 'functions', `${name}.sql`));
    if (text === null) {
      if (source) problems.push(`${name}: dropped by ${rel(migration)}, but ${expected} still exists; delete it`);
      continue;
    }
    if (!source) {
      problems.push(`${name}: created by ${rel(migration)} but has no source file; copy its CREATE statement into ${expected}`);
      continue;
    }
    const statement = sourceStatement(source.text);
    if (statement === null) {
      problems.push(`${name}: ${expected} must hold exactly one CREATE FUNCTION "${name}" statement`);
      continue;
    }
    const [want, got] = [normalize(statement), normalize(text)];
    if (want !== got) {
      const diff = firstDifference(want, got);
      problems.push(
        `${name}: ${expected} differs from its last definition, in ${rel(migration)}\n` +
          `    line ${diff.line} of the statement: source ${JSON.stringify(diff.source)}, migration ${JSON.stringify(diff.migration)}\n` +
          `    ${fix} (an applied migration is never edited)`,
      );
    }
  }
  for (const [name, source] of sources) {
    if (migrated.has(name)) continue;
    const statement = sourceStatement(source.text);
    const named = statement && CREATE.exec(statement)[1];
    if (named !== name) problems.push(`${name}: ${rel(source.file)} must hold exactly one CREATE FUNCTION "${name}" statement`);
    else problems.push(`${name}: ${rel(source.file)} is in no migration yet; ${fix}`);
  }
  return problems;
}

/** Splits a parenthesized list at its top-level commas. */
function splitTopLevel(list) {
  const parts = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '(') depth++;
    else if (list[i] === ')') depth--;
    else if (list[i] === ',' && depth === 0) {
      parts.push(list.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(list.slice(from));
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** The argument list and return type of a CREATE FUNCTION statement, whitespace-normalized. */
function signature(statement) {
  const open = CREATE.exec(statement)[0].length - 1;
  let depth = 0;
  let close = open;
  for (; close < statement.length; close++) {
    if (statement[close] === '(') depth++;
    else if (statement[close] === ')' && --depth === 0) break;
  }
  const squash = (s) => s.replace(/\s+/g, ' ').trim();
  const args = splitTopLevel(statement.slice(open + 1, close)).map((a) => squash(a.replace(/\s+(?:DEFAULT\b|=)[\s\S]*$/i, '')));
  const rest = statement.slice(close + 1);
  const body = rest.search(/\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/);
  const returns =
    /\bRETURNS\s+([\s\S]*?)\s*(?:\bLANGUAGE\b|\bAS\b|\bIMMUTABLE\b|\bSTABLE\b|\bVOLATILE\b|\bSTRICT\b|\bSECURITY\b|\bPARALLEL\b|\bCOST\b|\bROWS\b|\bSET\b|$)/i.exec(
      body < 0 ? rest : rest.slice(0, body),
    );
  return { args, returns: squash(returns ? returns[1] : '') };
}

/** The migration SQL that brings the database to the source files of one prisma folder. */
function migrationSql(prismaDir) {
  const migrated = migratedFunctions(prismaDir);
  const parts = [];
  for (const [name, source] of sourceFunctions(prismaDir)) {
    const statement = sourceStatement(source.text);
    if (statement === null || CREATE.exec(statement)[1] !== name) {
      throw new Error(`${rel(source.file)} must hold exactly one CREATE FUNCTION "${name}" statement`);
    }
    const previous = migrated.get(name);
    if (previous?.text && normalize(previous.text) === normalize(statement)) continue;
    const lines = [`-- functions/${name}.sql`];
    if (previous?.text) {
      const [was, now] = [signature(previous.text), signature(statement)];
      if (was.returns !== now.returns || was.args.join(', ') !== now.args.join(', ')) {
        lines.push(`DROP FUNCTION "${name}"(${was.args.join(', ')});`);
      }
    }
    lines.push(statement.replace(/^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\b/i, 'CREATE OR REPLACE FUNCTION').trimEnd());
    parts.push(lines.join('\n'));
  }
  return parts.length ? `${parts.join('\n\n')}\n` : '';
}

/** apps/<arg>/prisma, or <arg> itself when it is a path. */
function prismaDirOf(arg) {
  const app = path.join(root, 'apps', arg, 'prisma');
  return /[\\/]/.test(arg) || !fs.existsSync(app) ? path.resolve(arg) : app;
}

function servicePrismaDirs() {
  const apps = path.join(root, 'apps');
  return fs
    .readdirSync(apps)
    .map((app) => path.join(apps, app, 'prisma'))
    .filter((dir) => fs.existsSync(path.join(dir, 'migrations')));
}

function fail(message) {
  process.stderr.write(`sql-functions: ${message}\n`);
  process.exit(1);
}

function main() {
  const { values, positionals } = parseArgs({ options: { name: { type: 'string' } }, allowPositionals: true });
  const [command, ...rest] = positionals;
  if (command === 'check') {
    const problems = (rest.length ? rest.map(prismaDirOf) : servicePrismaDirs()).flatMap((dir) => check(dir));
    if (problems.length) fail(`SQL functions and migrations disagree:\n  ${problems.join('\n  ')}`);
    return;
  }
  if (command !== 'migration' || rest.length !== 1) {
    fail('usage: node tools/prisma/sql-functions.js check [<service>...] | migration <service> [--name <past_tense_name>]');
  }
  const prismaDir = prismaDirOf(rest[0]);
  if (!fs.existsSync(path.join(prismaDir, 'functions'))) fail(`no ${rel(path.join(prismaDir, 'functions'))}`);
  if (values.name && !/^[a-z0-9_]+$/.test(values.name)) fail('--name must be lower_snake_case, e.g. settlement_capped_at_hold');
  let sql;
  try {
    sql = migrationSql(prismaDir);
  } catch (error) {
    fail(error.message);
  }
  if (!sql) {
    process.stderr.write('no function changes\n');
    return;
  }
  if (!values.name) {
    process.stdout.write(sql);
    return;
  }
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = path.join(prismaDir, 'migrations', `${stamp}_${values.name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), sql);
  process.stderr.write(`wrote ${rel(dir)}/migration.sql\n`);
}

main();
