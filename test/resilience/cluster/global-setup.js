// Brings the cluster up fresh for the run (`npm run cluster -- up --fresh`), or, with
// CLUSTER_KEEP=1, reuses one already running (then started with these settings by hand).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { TEST_ENV } = require('./cluster-env');

const root = path.resolve(__dirname, '../../..');
const cli = path.join(root, 'infra/cluster/cluster.js');

module.exports = async () => {
  fs.rmSync(path.join(root, 'tmp/cluster-results'), { recursive: true, force: true });
  globalThis.__clusterStartedAt = Date.now();
  const running = fs.existsSync(path.join(root, 'tmp/cluster/run/platform.pid'));
  // `up` on a running cluster starts only what is missing (a standby lost to an earlier failover).
  if (process.env.CLUSTER_KEEP === '1' && running)
    return execFileSync(process.execPath, [cli, 'up'], { stdio: 'inherit', env: { ...process.env, ...TEST_ENV } });
  if (running) execFileSync(process.execPath, [cli, 'down'], { stdio: 'inherit' });
  try {
    execFileSync(process.execPath, [cli, 'up', '--fresh'], { stdio: 'inherit', env: { ...process.env, ...TEST_ENV } });
  } catch (err) {
    execFileSync(process.execPath, [cli, 'down'], { stdio: 'inherit' }); // leave nothing running
    throw err;
  }
  globalThis.__clusterUpSeconds = Math.round((Date.now() - globalThis.__clusterStartedAt) / 1000);
};
