// Prints what every fault cost (support/results.ts wrote one file per test), then takes the
// cluster down (`npm run cluster -- down`) unless CLUSTER_KEEP=1.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');

module.exports = async () => {
  const dir = path.join(root, 'tmp/cluster-results');
  const results = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))) : [];
  process.stdout.write('\n=== cluster fault results ===\n');
  if (globalThis.__clusterUpSeconds) process.stdout.write(`cluster up: ${globalThis.__clusterUpSeconds} s\n`);
  for (const r of results.sort((a, b) => a.at.localeCompare(b.at))) process.stdout.write(`${r.name}: ${JSON.stringify(r.figures)}\n`);
  if (process.env.CLUSTER_KEEP !== '1') execFileSync(process.execPath, [path.join(root, 'infra/cluster/cluster.js'), 'down'], { stdio: 'inherit' });
  process.stdout.write(`cluster tests: ${Math.round((Date.now() - globalThis.__clusterStartedAt) / 1000)} s in all\n`);
};
