#!/usr/bin/env node
// Generates the Prisma client of every apps/*/prisma/schema.prisma, offline.
// `prisma generate` only needs the schema-engine path to exist (it never runs it), so we point
// PRISMA_SCHEMA_ENGINE_BINARY at node itself; the download host is unreachable here.
// A stamp in the output folder skips schemas whose inputs have not changed. A schema without a
// generator block (billing: its code uses pg and SQL functions) only describes tables for
// migrations: no client is generated for it.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const prismaDir = path.dirname(require.resolve('prisma/package.json', { paths: [root] }));
const prismaCli = path.join(prismaDir, 'build/index.js');
const prismaVersion = require(path.join(prismaDir, 'package.json')).version;
const force = process.argv.includes('--force');
const STAMP = '.schema-hash';

function schemas() {
  const apps = path.join(root, 'apps');
  return fs
    .readdirSync(apps)
    .map((app) => ({ app, dir: path.join(apps, app, 'prisma') }))
    .filter(({ dir }) => fs.existsSync(path.join(dir, 'schema.prisma')))
    .map(({ app, dir }) => ({ app, dir, schema: path.join(dir, 'schema.prisma'), config: path.join(dir, 'prisma.config.ts') }));
}

function hasGenerator(schemaFile) {
  return /^generator\s+\w+\s*{/m.test(fs.readFileSync(schemaFile, 'utf8'));
}

function outputDir(schemaFile) {
  const text = fs.readFileSync(schemaFile, 'utf8');
  const generator = /generator\s+\w+\s*{([^}]*)}/m.exec(text);
  const output = generator && /^\s*output\s*=\s*"([^"]+)"/m.exec(generator[1]);
  if (!output) throw new Error(`${path.relative(root, schemaFile)}: the generator needs an explicit output path`);
  return path.resolve(path.dirname(schemaFile), output[1]);
}

function inputsHash({ schema, config }) {
  const hash = createHash('sha256').update(prismaVersion);
  for (const file of [schema, config]) if (fs.existsSync(file)) hash.update(fs.readFileSync(file));
  return hash.digest('hex');
}

function generate(target) {
  if (!hasGenerator(target.schema)) {
    process.stdout.write(`[prisma] ${target.app}: no client (the schema has no generator)\n`);
    return;
  }
  const out = outputDir(target.schema);
  const stampFile = path.join(out, STAMP);
  const hash = inputsHash(target);
  const upToDate = fs.existsSync(path.join(out, 'client.ts')) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === hash;
  if (upToDate && !force) {
    process.stdout.write(`[prisma] ${target.app}: up to date\n`);
    return;
  }
  const args = [prismaCli, 'generate', '--schema', target.schema];
  if (fs.existsSync(target.config)) args.push('--config', target.config);
  const env = {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  };
  try {
    execFileSync(process.execPath, args, { cwd: root, env, stdio: 'pipe' });
  } catch (err) {
    throw new Error(`${target.app}: ${String(err.stderr || '')}${String(err.stdout || '')}`.trim());
  }
  fs.writeFileSync(stampFile, hash);
  process.stdout.write(`[prisma] ${target.app}: generated ${path.relative(root, out)}\n`);
}

try {
  schemas().forEach(generate);
} catch (err) {
  process.stderr.write(`[prisma] generate failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
