import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';

/** Records one fault's figures for the run's summary (printed by global-teardown.js; docs/cluster.md quotes them). */
export function recordResult(name: string, figures: Record<string, unknown>): void {
  const dir = path.join(REPO_ROOT, 'tmp/cluster-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.json`), JSON.stringify({ name, at: new Date().toISOString(), figures }));
  process.stdout.write(`[cluster result] ${name}: ${JSON.stringify(figures)}\n`);
}
