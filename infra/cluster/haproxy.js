// HAProxy (Debian's 2.6) in front of the two gateways (HTTP, health-checked on /readyz) and of
// PostgreSQL (TCP: only the current primary is enabled; `failover` switches it at run time).
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { layout } = require('./layout');
const { listening, running, startProcess, stopProcess, waitUntil } = require('./processes');

function haproxyConfig(state) {
  const pgServer = (name) => `  server ${name} 127.0.0.1:${layout.pg[name].port} check inter 1s fall 2 rise 2${name === state.primary ? '' : ' disabled'}`;
  return `global
  maxconn 4096
  stats socket ${layout.haproxySocket} mode 600 level admin

defaults
  timeout connect 1s
  timeout client 300s
  timeout server 300s
  # a connection refused (a gateway just killed, not yet marked down) is tried once more, on the other one
  retries 1
  option redispatch

frontend api
  mode http
  bind 127.0.0.1:${layout.http.port}
  option http-server-close
  default_backend gateways

backend gateways
  mode http
  balance leastconn
  option httpchk GET /readyz
  http-check expect status 200
  # A dead gateway refuses the check at once (down within about 1 s); a busy one may take a while
  # to answer, and without this a /readyz slower than inter (500 ms) counts as a failure: on 2
  # busy cores the surviving gateway was marked down too, and the balancer had no server for a while.
  timeout check 3s
  default-server inter 500ms fall 2 rise 2
${layout.gateways.map((port, i) => `  server gateway-${i + 1} 127.0.0.1:${port} check`).join('\n')}

listen postgres
  mode tcp
  bind 127.0.0.1:${layout.pgProxyPort}
  timeout client 1h
  timeout server 1h
  default-server on-marked-down shutdown-sessions
${Object.keys(layout.pg).map(pgServer).join('\n')}

listen stats
  mode http
  bind 127.0.0.1:${layout.http.statsPort}
  stats enable
  stats uri /
`;
}

async function startHaproxy(state) {
  if (running('haproxy')) return;
  const config = path.join(layout.dir, 'haproxy.cfg');
  fs.writeFileSync(config, haproxyConfig(state));
  startProcess('haproxy', 'haproxy', ['-db', '-f', config]);
  await waitUntil('haproxy', () => listening(layout.http.port));
}

/** One command on HAProxy's runtime API (its stats socket); resolves with the answer. */
function haproxyCommand(command) {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(layout.haproxySocket, () => socket.end(`${command}\n`));
    socket.on('data', (d) => (answer += d.toString()));
    socket.once('end', () => resolve(answer.trim()));
    socket.once('error', reject);
  });
}

/** Each server of each backend and its state (UP, DOWN, MAINT), from `show stat`. */
async function serverStates() {
  const csv = await haproxyCommand('show stat');
  const [header, ...rows] = csv.replace(/^# /, '').split('\n');
  const cols = header.split(',');
  const at = (row, name) => row.split(',')[cols.indexOf(name)];
  return rows.filter((r) => !['FRONTEND', 'BACKEND'].includes(at(r, 'svname'))).map((r) => `${at(r, 'pxname')}/${at(r, 'svname')} ${at(r, 'status')}`);
}

const stopHaproxy = () => stopProcess('haproxy', 'SIGTERM', 5_000);

module.exports = { startHaproxy, stopHaproxy, haproxyCommand, serverStates };
