// Where every part of the local cluster listens and keeps its files (docs/cluster.md). Ports stay
// clear of the defaults (3000, 4222, 5432, 6379) and of 3000-3010: 31xx HTTP, 43xx NATS, 54xx
// PostgreSQL, 63xx Redis. Everything lives under tmp/cluster (git-ignored).
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const dir = path.join(root, 'tmp', 'cluster');

const layout = {
  root,
  dir,
  runDir: path.join(dir, 'run'),
  logDir: path.join(dir, 'logs'),
  statePath: path.join(dir, 'state.json'),
  adminKeyPath: path.join(dir, 'admin-key'),
  /** The one address clients use: HAProxy in front of the gateways. */
  http: { port: 3101, statsPort: 3109 },
  gateways: [3111, 3112],
  nats: [1, 2, 3].map((n) => ({ name: `nats-${n}`, port: 4300 + n, routePort: 4310 + n, monitorPort: 4320 + n })),
  /** The stable address the services use: HAProxy (TCP) in front of whichever server is primary. */
  pgProxyPort: 5401,
  pg: { pg1: { port: 5411 }, pg2: { port: 5412 } },
  redisPort: 6301,
  haproxySocket: path.join(dir, 'run', 'haproxy.sock'),
};

layout.natsUrl = layout.nats.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
layout.pgUrl = `postgresql://postgres@127.0.0.1:${layout.pgProxyPort}`;
layout.apiUrl = `http://127.0.0.1:${layout.http.port}/api/v1`;

module.exports = { layout };
