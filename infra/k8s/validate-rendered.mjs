#!/usr/bin/env node
// Renders each kustomization (`kubectl kustomize`) and checks what would be applied, offline:
// 1. every object against the Kubernetes JSON schemas of the `kubernetes-models` package (types,
//    required fields, enums, formats; the schemas of the Kubernetes release it tracks);
// 2. the platform's rules: every Deployment and StatefulSet has readiness and liveness probes, CPU and memory
//    requests and limits, and a PodDisruptionBudget that still lets a node drain; gateway, chat,
//    media and audio have HPAs (the gateway's on CPU); a default-deny NetworkPolicy, ingress from
//    outside the namespace only to the gateway (and /metrics from `monitoring`), NATS egress for
//    every app, Postgres egress only for the apps with a database URL, the outside world only
//    for the apps that call upstreams; database URLs and keys only from Secrets; a migration Job;
// 3. the clustered topology: a NATS StatefulSet of 3 behind a headless Service, JetStream on a
//    volume per pod, routes to every server, a PDB keeping a quorum (minAvailable 2), every app's
//    NATS_URL the seed list of the three servers, the route port open between NATS pods and the
//    client port from every app; outside a `dev` kustomization, every Deployment at 2+ replicas
//    with a PDB that keeps one serving. (The platform creates no JetStream stream, so there is no
//    stream replication to check; README.md, "NATS".) Points 3 and 4 are in validate-topology.mjs.
// 4. once, the PostgreSQL the manifests expect (data/cnpg-cluster.yaml): a CloudNativePG Cluster
//    of a primary and streaming standbys, commits waiting for one standby, in the namespace the
//    egress policy opens, and every database URL of secret.example.yaml on its read-write Service.
//   node infra/k8s/validate-rendered.mjs [kustomization dir ...]   (default: base and both overlays)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { get, nsOf, podsAllowed, podsOf, rulesFor, selects } from './k8s-rules.mjs';
import { checkNats, checkPostgres, NATS, PG_NAMESPACE } from './validate-topology.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dirs = process.argv.slice(2).length ? process.argv.slice(2) : ['base', 'overlays/dev', 'overlays/prod'].map((d) => path.join(here, d));
/** The infra/k8s tree the kustomizations belong to (a copy's own, for validate.sh's broken copies): where data/ is. */
const root = (function up(d) {
  if (fs.existsSync(path.join(d, 'data/cnpg-cluster.yaml'))) return d;
  return path.dirname(d) === d ? here : up(path.dirname(d));
})(path.resolve(dirs[0]));
const errors = [];

/** Apps that call model servers, web search or a JSON-RPC node: the only ones with egress to the internet. */
const OUTBOUND = new Set(['chat', 'media', 'audio', 'wallet']);
/** Apps that use Redis (rate limits, blob store, BullMQ). */
const REDIS = new Set(['gateway', 'chat', 'media', 'audio']);
const AUTOSCALED = ['gateway', 'chat', 'media', 'audio'];
const SECRET_ENV = /(_DATABASE_URL|_KEY|_SECRET|_TOKEN|PASSWORD)$/;
/** Kustomizations (by folder name) whose Deployments may run a single replica. */
const SINGLE_REPLICA_OK = new Set(['dev']);

async function schemaErrors(obj) {
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : [null, obj.apiVersion];
  const modulePath = `kubernetes-models/${group ? `${group}/` : ''}${version}/${obj.kind}`;
  let Model;
  try {
    Model = (await import(modulePath))[obj.kind];
  } catch {
    return [`no schema for ${obj.apiVersion} ${obj.kind}`];
  }
  try {
    new Model(obj).validate();
    return [];
  } catch (err) {
    return [String(err.message).split('\n').slice(0, 5).join('; ')];
  }
}

async function check(dir) {
  const where = path.relative(process.cwd(), dir) || '.';
  const fail = (msg) => errors.push(`${where}: ${msg}`);
  let rendered;
  try {
    rendered = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    fail(`kubectl kustomize failed: ${String(err.stderr || err.message).trim()}`);
    return;
  }
  const objects = YAML.parseAllDocuments(rendered)
    .map((d) => d.toJS())
    .filter(Boolean);
  for (const obj of objects) for (const e of await schemaErrors(obj)) fail(`${obj.kind}/${get(obj, 'metadata.name')}: ${e}`);

  const of = (kind) => objects.filter((o) => o.kind === kind);
  const deployments = of('Deployment');
  const hpas = of('HorizontalPodAutoscaler');
  const pdbs = of('PodDisruptionBudget');
  const policies = of('NetworkPolicy');
  const ha = !SINGLE_REPLICA_OK.has(path.basename(dir));
  const natsLabels = checkNats(objects, fail);
  for (const w of [...deployments, ...of('StatefulSet')]) {
    const name = w.metadata.name;
    const what = `${w.kind} ${name}`;
    const labels = get(w, 'spec.template.metadata.labels') || {};
    for (const c of get(w, 'spec.template.spec.containers') || []) {
      if (!c.readinessProbe || !c.livenessProbe) fail(`${what} container ${c.name}: needs readiness and liveness probes`);
      for (const k of ['requests', 'limits'])
        for (const r of ['cpu', 'memory']) if (!get(c, `resources.${k}.${r}`)) fail(`${what} container ${c.name}: no ${k}.${r}`);
      for (const e of c.env || []) if (SECRET_ENV.test(e.name) && e.value !== undefined) fail(`${what}: ${e.name} is a literal value, not from a Secret`);
    }
    const hpa = hpas.find((h) => get(h, 'spec.scaleTargetRef.kind') === w.kind && get(h, 'spec.scaleTargetRef.name') === name);
    const minReplicas = hpa ? (get(hpa, 'spec.minReplicas') ?? 1) : (get(w, 'spec.replicas') ?? 1);
    const budgets = pdbs.filter((p) => selects(get(p, 'spec.selector'), labels));
    if (budgets.length !== 1) fail(`${what}: ${budgets.length} PodDisruptionBudgets select it (want 1)`);
    for (const p of budgets) {
      const min = get(p, 'spec.minAvailable');
      const maxUnavailable = get(p, 'spec.maxUnavailable');
      if ([min, maxUnavailable].some((v) => v !== undefined && !Number.isInteger(v)))
        fail(`PodDisruptionBudget ${p.metadata.name}: use a number of pods, not a percentage (checkable against the replica count)`);
      if (Number.isInteger(min) && min >= minReplicas)
        fail(`PodDisruptionBudget ${p.metadata.name}: minAvailable ${min} with ${minReplicas} replica(s) blocks every drain`);
      if (maxUnavailable === 0) fail(`PodDisruptionBudget ${p.metadata.name}: maxUnavailable 0 blocks every drain`);
      // With 2+ replicas a drain must leave one serving: a budget that allows evicting them all does not.
      const keeps = Number.isInteger(min) ? min : Number.isInteger(maxUnavailable) ? minReplicas - maxUnavailable : 0;
      if (ha && keeps < 1) fail(`PodDisruptionBudget ${p.metadata.name}: lets a drain evict all ${minReplicas} replicas of ${name}`);
    }
    if (ha && w.kind === 'Deployment' && minReplicas < 2)
      fail(`${what}: ${minReplicas} replica(s) at least; want 2 or more (only a ${[...SINGLE_REPLICA_OK].join('/')} kustomization may run one)`);
  }
  for (const d of deployments) {
    const name = d.metadata.name;
    const labels = get(d, 'spec.template.metadata.labels') || {};
    const app = labels['app.kubernetes.io/name'];
    const hpa = hpas.find((h) => get(h, 'spec.scaleTargetRef.name') === name);
    if (AUTOSCALED.includes(app) && !hpa) fail(`Deployment ${name}: no HorizontalPodAutoscaler`);
    if (app === 'gateway' && hpa && !(hpa.spec.metrics || []).some((m) => get(m, 'resource.name') === 'cpu')) fail('the gateway HPA must scale on CPU');

    const egress = rulesFor(policies, labels, 'egress');
    const reaches = (ns, port) => egress.some((r) => r.namespace === ns && r.ports.includes(port));
    if (natsLabels && !podsAllowed(egress, natsLabels, NATS.client)) fail(`Deployment ${name}: no egress to the NATS pods' client port ${NATS.client}`);
    const hasDb = (get(d, 'spec.template.spec.containers') || []).some((c) => (c.env || []).some((e) => /_DATABASE_URL$/.test(e.name)));
    if (hasDb !== reaches(PG_NAMESPACE, 5432))
      fail(`Deployment ${name}: ${hasDb ? 'has a database URL but no' : 'has no database URL but'} egress to Postgres`);
    if (REDIS.has(app) !== reaches('redis', 6379)) fail(`Deployment ${name}: Redis egress should be ${REDIS.has(app) ? 'allowed' : 'denied'}`);
    const internet = egress.some((r) => r.cidr === '0.0.0.0/0');
    if (internet !== OUTBOUND.has(app)) fail(`Deployment ${name}: egress to the internet should be ${OUTBOUND.has(app) ? 'allowed' : 'denied'}`);
  }
  const denyAll = policies.find(
    (p) =>
      !Object.keys(p.spec.podSelector || {}).length &&
      ['Ingress', 'Egress'].every((t) => (p.spec.policyTypes || []).includes(t)) &&
      !p.spec.ingress &&
      !p.spec.egress,
  );
  if (!denyAll) fail('no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)');
  const gatewayLabels = get(
    deployments.find((d) => d.metadata.name === 'gateway'),
    'spec.template.metadata.labels',
  );
  for (const p of policies) {
    for (const rule of p.spec.ingress || []) {
      if (!rule.from || !rule.from.length) fail(`NetworkPolicy ${p.metadata.name}: an ingress rule without "from" admits everyone`);
      const outside = (rule.from || []).filter((peer) => nsOf(peer) !== 'monitoring' && !podsOf(peer));
      const onlyGateway = deployments.every(
        (d) => d.metadata.name === 'gateway' || !selects(p.spec.podSelector, get(d, 'spec.template.metadata.labels') || {}),
      );
      if (outside.length && !(onlyGateway && gatewayLabels && selects(p.spec.podSelector, gatewayLabels)))
        fail(`NetworkPolicy ${p.metadata.name}: admits traffic from outside to pods other than the gateway`);
    }
  }
  if (!of('Job').some((j) => get(j, 'metadata.labels')?.['app.kubernetes.io/name'] === 'migrate')) fail('no migration Job');
  process.stdout.write(`${where}: ${objects.length} objects rendered and checked\n`);
}

checkPostgres(root, (msg) => errors.push(`${path.relative(process.cwd(), path.join(root, 'data/cnpg-cluster.yaml'))}: ${msg}`));
for (const dir of dirs) await check(path.resolve(dir));
if (errors.length) {
  process.stderr.write(`${errors.map((e) => `error: ${e}`).join('\n')}\n`);
  process.exit(1);
}
