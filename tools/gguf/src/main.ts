#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { writeTinyGguf } from './write-tiny-gguf';
import { errorMessage } from '@svc/errors';

const USAGE = 'usage: node dist/tools/gguf/src/main.js --out models/svc-tiny-random.gguf [--seed N]';

function main(): void {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!values.out) throw new Error(`--out is required\n${USAGE}`);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  const started = Date.now();
  const summary = writeTinyGguf(values.out, seed === undefined ? {} : { seed });
  const { config } = summary;
  process.stdout.write(
    `wrote ${summary.path}: ${summary.bytes} bytes, ${summary.parameters} parameters, vocab ${config.vocabSize}, ` +
      `seed ${config.seed}, sha256 ${summary.sha256} (${Date.now() - started} ms)\n`,
  );
}

try {
  main();
} catch (err) {
  process.stderr.write(`${errorMessage(err)}\n`);
  process.exitCode = 1;
}
