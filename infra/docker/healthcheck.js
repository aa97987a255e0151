#!/usr/bin/env node
// Container health probe (Docker HEALTHCHECK). The gateway: GET /healthz must answer 200 (it checks
// every service). A service: its `<app>.cmd.health.v1` NATS subject must answer status "ok".
// Caveat: services subscribe in a queue group, so with several replicas any replica may answer;
// that is why the Kubernetes manifests do not use this for services (see infra/k8s/README.md).
const { randomUUID } = require('node:crypto');

const app = process.argv[2] || process.env.APP;
const TIMEOUT_MS = 3_000;

async function gateway() {
  const res = await fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
}

async function service(name) {
  const { connect } = require('nats');
  const nc = await connect({ servers: (process.env.NATS_URL || 'nats://127.0.0.1:4222').split(','), timeout: TIMEOUT_MS, name: `${name}-healthcheck` });
  try {
    const subject = `${name}.cmd.health.v1`;
    const packet = JSON.stringify({ pattern: subject, data: {}, id: randomUUID() });
    const msg = await nc.request(subject, new TextEncoder().encode(packet), { timeout: TIMEOUT_MS });
    const reply = JSON.parse(new TextDecoder().decode(msg.data));
    const status = reply.response && reply.response.status;
    if (reply.err || status !== 'ok') throw new Error(`${subject}: ${JSON.stringify(reply.err || reply.response)}`);
  } finally {
    await nc.close();
  }
}

(app === 'gateway' ? gateway() : service(app)).then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`unhealthy: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
