#!/usr/bin/env node
// Extracts from OpenAI's OpenAPI document the component schemas that the conformance suite
// (e2e/conformance) validates against, with every schema they reach through `$ref`, into a small
// vendored JSON file, so CI does not need the 3.3 MB document beside the checkout.
//
//   node tools/openai-schemas/extract.mjs [path/to/openapi.json]          # writes the vendored file
//   node tools/openai-schemas/extract.mjs --check [path/to/openapi.json]  # fails if it is stale
//
// Only annotations are dropped (descriptions, titles, examples, `x-*` vendor keys): every keyword
// that validates is kept as OpenAI wrote it. Reading OpenAPI's dialect (`nullable`,
// `$recursiveRef`) is the suite's job (e2e/conformance/openai-schemas.ts), not this script's.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(root, 'e2e/conformance/openai-schemas.json');
const DEFAULT_SOURCE = path.resolve(root, '../shared/reference/openai/openapi.json');

/** The schemas the suite names; everything they reference comes along. */
const ROOTS = [
  'ListModelsResponse',
  'Model',
  'CreateChatCompletionResponse',
  'CreateChatCompletionStreamResponse',
  'CreateCompletionResponse',
  'CreateEmbeddingResponse',
  'ImagesResponse',
  'CreateTranscriptionResponseJson',
  'CreateTranscriptionResponseVerboseJson',
  'CreateTranslationResponseJson',
  'CreateTranslationResponseVerboseJson',
  'Response',
  'ResponseStreamEvent',
  'ErrorResponse',
];

const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples']);
const REF_PREFIX = '#/components/schemas/';

/** A copy of a schema without annotations. `properties` maps names to schemas, so its keys are never dropped. */
function strip(node) {
  if (Array.isArray(node)) return node.map(strip);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if ((key === 'properties' || key === 'patternProperties' || key === '$defs') && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, strip(schema)]));
    } else out[key] = strip(value);
  }
  return out;
}

function refsOf(node, found = new Set()) {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, found));
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        if (!value.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${value}`);
        found.add(value.slice(REF_PREFIX.length));
      } else refsOf(value, found);
    }
  }
  return found;
}

function extract(document) {
  const all = document.components.schemas;
  const picked = {};
  const queue = [...ROOTS];
  while (queue.length > 0) {
    const name = queue.pop();
    if (name in picked) continue;
    if (!(name in all)) throw new Error(`schema ${name} is not in the document`);
    picked[name] = strip(all[name]);
    queue.push(...refsOf(picked[name]));
  }
  const schemas = Object.fromEntries(
    Object.keys(picked)
      .sort()
      .map((name) => [name, picked[name]]),
  );
  return {
    source: { document: 'openai/openai-openapi openapi.json', openapi: document.openapi, version: document.info.version },
    roots: ROOTS,
    components: { schemas },
  };
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const source = path.resolve(args.find((a) => !a.startsWith('--')) ?? DEFAULT_SOURCE);
const text = `${JSON.stringify(extract(JSON.parse(readFileSync(source, 'utf8'))), null, 1)}\n`;
if (check) {
  if (readFileSync(OUT, 'utf8') !== text) {
    process.stderr.write(`${path.relative(root, OUT)} is not what ${source} gives: run node tools/openai-schemas/extract.mjs\n`);
    process.exit(1);
  }
  process.stdout.write(`${path.relative(root, OUT)} is up to date\n`);
} else {
  writeFileSync(OUT, text);
  process.stdout.write(`wrote ${path.relative(root, OUT)}: ${Object.keys(JSON.parse(text).components.schemas).length} schemas, ${text.length} bytes\n`);
}
