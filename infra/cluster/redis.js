// A Redis of the cluster's own: nothing on disk, like the development one.
const { layout } = require('./layout');
const { listening, running, startProcess, stopProcess, waitUntil } = require('./processes');

async function startRedis() {
  if (running('redis')) return;
  const args = ['--bind', '127.0.0.1', '--port', String(layout.redisPort), '--save', '', '--appendonly', 'no', '--dir', layout.dir];
  startProcess('redis', 'redis-server', args);
  await waitUntil('redis', () => listening(layout.redisPort));
}

const stopRedis = () => stopProcess('redis', 'SIGTERM', 10_000);

module.exports = { startRedis, stopRedis };
