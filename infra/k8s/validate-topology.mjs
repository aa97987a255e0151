// The clustered topology's rules, for validate-rendered.mjs (its header, points 3 and 4): the NATS
// cluster in a rendered kustomization, and the PostgreSQL cluster of data/cnpg-cluster.yaml.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { get, podsAllowed, rulesFor, selects } from './k8s-rules.mjs';

/** The NATS cluster: its size, client and route ports. */
export const NATS = { replicas: 3, client: 4222, cluster: 6222 };
/** The namespace of the PostgreSQL cluster (data/cnpg-cluster.yaml), which egress-postgres opens. */
export const PG_NAMESPACE = 'postgres';

/** The value of `name` in a container's environment: its own env, else its envFrom ConfigMaps. */
function envValue(container, name, configMaps) {
  const own = (container.env || []).find((e) => e.name === name);
  if (own) return own.value;
  for (const from of [...(container.envFrom || [])].reverse()) {
    const cm = configMaps.find((c) => c.metadata.name === get(from, 'configMapRef.name'));
    if (cm && cm.data && cm.data[name] !== undefined) return cm.data[name];
  }
  return undefined;
}

/** A `name { ... }` block of a NATS configuration file (comments removed), or undefined. */
function confBlock(text, name) {
  const start = new RegExp(`^\\s*${name}\\s*[:=]?\\s*\\{`, 'm').exec(text);
  if (!start) return undefined;
  let depth = 0;
  for (let i = start.index + start[0].length - 1; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(start.index + start[0].length, i);
  }
  return undefined;
}
const confValue = (text, key) => new RegExp(`^\\s*${key}\\s*[:=]\\s*"?([^"\\s]+)"?`, 'm').exec(text || '')?.[1];

/** The NATS cluster and the apps' use of it (validate-rendered.mjs, point 3), in one rendered kustomization. */
export function checkNats(objects, fail) {
  const of = (kind) => objects.filter((o) => o.kind === kind);
  const labelsOf = (w) => get(w, 'spec.template.metadata.labels') || {};
  const sets = of('StatefulSet').filter((s) => labelsOf(s)['app.kubernetes.io/name'] === 'nats');
  if (sets.length !== 1) return fail(`${sets.length} NATS StatefulSets (app.kubernetes.io/name=nats); want 1`);
  const sts = sets[0];
  const name = sts.metadata.name;
  const natsLabels = labelsOf(sts);
  const replicas = get(sts, 'spec.replicas') ?? 1;
  if (replicas !== NATS.replicas)
    fail(`StatefulSet ${name}: ${replicas} replica(s); want ${NATS.replicas}, a cluster that keeps a quorum when one server goes`);
  if (get(sts, 'spec.podManagementPolicy') !== 'Parallel')
    fail(`StatefulSet ${name}: podManagementPolicy must be Parallel (a JetStream cluster is healthy only once a quorum runs, so one-by-one start never ends)`);

  const serviceName = get(sts, 'spec.serviceName');
  const svc = of('Service').find((x) => x.metadata.name === serviceName);
  if (!svc) fail(`StatefulSet ${name}: serviceName ${serviceName} is not a Service`);
  else {
    if (get(svc, 'spec.clusterIP') !== 'None') fail(`Service ${serviceName}: must be headless (clusterIP: None) to name each NATS pod`);
    if (get(svc, 'spec.publishNotReadyAddresses') !== true)
      fail(`Service ${serviceName}: publishNotReadyAddresses must be true (the servers find each other before they are ready)`);
    if (!selects({ matchLabels: get(svc, 'spec.selector') }, natsLabels)) fail(`Service ${serviceName}: does not select the NATS pods`);
    for (const port of [NATS.client, NATS.cluster])
      if (!(get(svc, 'spec.ports') || []).some((p) => p.port === port)) fail(`Service ${serviceName}: no port ${port}`);
  }

  const quorum = Math.floor(replicas / 2) + 1;
  for (const p of of('PodDisruptionBudget').filter((b) => selects(get(b, 'spec.selector'), natsLabels)))
    if (get(p, 'spec.minAvailable') !== quorum)
      fail(`PodDisruptionBudget ${p.metadata.name}: minAvailable must be ${quorum}, a quorum of the ${replicas} NATS servers`);

  // The configuration file the server is started with, from its ConfigMap volume.
  const container = (get(sts, 'spec.template.spec.containers') || [])[0] || {};
  const argv = [...(container.command || []), ...(container.args || [])];
  const confPath = argv[argv.findIndex((a) => a === '--config' || a === '-c') + 1];
  const mounts = container.volumeMounts || [];
  const mountOf = (file) => mounts.find((m) => file && file.startsWith(`${m.mountPath.replace(/\/$/, '')}/`));
  const confMount = mountOf(confPath);
  const confVolume = (get(sts, 'spec.template.spec.volumes') || []).find((v) => confMount && v.name === confMount.name);
  const confMap = of('ConfigMap').find((c) => c.metadata.name === get(confVolume, 'configMap.name'));
  const conf = confMap?.data?.[path.posix.basename(confPath || '')]?.replace(/^\s*(#|\/\/).*$/gm, '');
  if (!conf) return fail(`StatefulSet ${name}: no configuration file found (--config <file> on a ConfigMap volume)`);

  const serverName = /^\s*server_name\s*[:=]\s*\$(\w+)/m.exec(conf)?.[1];
  const nameEnv = (container.env || []).find((e) => e.name === serverName);
  if (!nameEnv || get(nameEnv, 'valueFrom.fieldRef.fieldPath') !== 'metadata.name')
    fail(`StatefulSet ${name}: server_name must come from the pod name (an env var from metadata.name); a JetStream cluster needs unique names`);

  const cluster = confBlock(conf, 'cluster');
  if (!cluster) fail(`StatefulSet ${name}: the configuration has no cluster block`);
  else {
    if (Number(confValue(cluster, 'port')) !== NATS.cluster) fail(`StatefulSet ${name}: cluster port must be ${NATS.cluster}`);
    if (!confValue(cluster, 'name')) fail(`StatefulSet ${name}: the cluster needs a name`);
    const routes = (/routes\s*[:=]?\s*\[([^\]]*)\]/.exec(cluster)?.[1] || '')
      .split(/[\s,]+/)
      .filter(Boolean)
      .sort();
    const want = Array.from({ length: replicas }, (_, i) => `nats://${name}-${i}.${serviceName}:${NATS.cluster}`).sort();
    if (routes.join() !== want.join()) fail(`StatefulSet ${name}: cluster routes ${routes.join(' ') || '(none)'}; want every server: ${want.join(' ')}`);
  }

  const jetstream = confBlock(conf, 'jetstream');
  const storeDir = confValue(jetstream, 'store_dir');
  const claims = (get(sts, 'spec.volumeClaimTemplates') || []).map((t) => t.metadata.name);
  if (!jetstream) fail(`StatefulSet ${name}: JetStream is not enabled (no jetstream block)`);
  else if (!storeDir || !claims.includes(mountOf(storeDir)?.name))
    fail(`StatefulSet ${name}: JetStream's store_dir (${storeDir}) must be on a volumeClaimTemplates volume (file storage on a PVC per pod)`);

  // Every app connects to the seed list of all the servers.
  const seeds = Array.from({ length: replicas }, (_, i) => `nats://${name}-${i}.${serviceName}:${NATS.client}`);
  for (const d of of('Deployment')) {
    for (const c of get(d, 'spec.template.spec.containers') || []) {
      const url = envValue(c, 'NATS_URL', of('ConfigMap'));
      if (url === undefined) continue;
      if ([...url.split(',')].sort().join() !== [...seeds].sort().join())
        fail(`Deployment ${d.metadata.name} container ${c.name}: NATS_URL ${url}; want the seed list ${seeds.join(',')}`);
    }
    if (!(get(d, 'spec.template.spec.containers') || []).some((c) => envValue(c, 'NATS_URL', of('ConfigMap')) !== undefined))
      fail(`Deployment ${d.metadata.name}: no NATS_URL`);
  }

  // The network: the client port from every app, the route port between the servers, nothing else out.
  const policies = of('NetworkPolicy');
  const natsIngress = rulesFor(policies, natsLabels, 'ingress');
  const natsEgress = rulesFor(policies, natsLabels, 'egress');
  for (const d of of('Deployment'))
    if (!podsAllowed(natsIngress, labelsOf(d), NATS.client)) fail(`NetworkPolicy: the NATS pods do not admit ${d.metadata.name} on ${NATS.client}`);
  if (!podsAllowed(natsIngress, natsLabels, NATS.cluster)) fail(`NetworkPolicy: the NATS pods do not admit each other on the route port ${NATS.cluster}`);
  if (!podsAllowed(natsEgress, natsLabels, NATS.cluster)) fail(`NetworkPolicy: the NATS pods may not reach each other on the route port ${NATS.cluster}`);
  for (const r of natsEgress)
    if (!(r.pods && selects(r.pods, natsLabels)) && r.namespace !== 'kube-system')
      fail(`NetworkPolicy: the NATS pods may reach ${r.cidr || r.namespace || 'other pods'}; they need only each other and DNS`);
  return natsLabels;
}

/** The PostgreSQL the manifests expect (validate-rendered.mjs, point 4), in the infra/k8s tree at `root`. */
export function checkPostgres(root, fail) {
  const file = path.join(root, 'data/cnpg-cluster.yaml');
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  const cluster = docs.find((d) => d.kind === 'Cluster' && String(d.apiVersion).startsWith('postgresql.cnpg.io/'));
  if (!cluster) return fail('no CloudNativePG Cluster');
  const { name, namespace } = cluster.metadata;
  const instances = get(cluster, 'spec.instances') ?? 1;
  if (instances < 2) fail(`Cluster ${name}: ${instances} instance(s); want a primary and at least one streaming standby`);
  const sync = get(cluster, 'spec.postgresql.synchronous.number') ?? get(cluster, 'spec.minSyncReplicas') ?? 0;
  if (sync < 1) fail(`Cluster ${name}: commits do not wait for a standby (spec.postgresql.synchronous.number >= 1), so a failover may lose settled charges`);
  if (namespace !== PG_NAMESPACE) fail(`Cluster ${name}: namespace ${namespace}; the egress-postgres NetworkPolicy opens ${PG_NAMESPACE}`);
  const databases = new Set([get(cluster, 'spec.bootstrap.initdb.database'), ...docs.filter((d) => d.kind === 'Database').map((d) => get(d, 'spec.name'))]);
  const secret = YAML.parse(fs.readFileSync(path.join(root, 'base/secret.example.yaml'), 'utf8'));
  const rw = [`${name}-rw.${namespace}`, `${name}-rw.${namespace}.svc.cluster.local`];
  for (const [key, value] of Object.entries(secret.stringData || {})) {
    if (!/_DATABASE_URL$/.test(key)) continue;
    const url = new URL(value);
    if (!rw.includes(url.hostname)) fail(`secret.example.yaml ${key}: host ${url.hostname}; want the read-write Service ${rw[1]}`);
    if (!databases.has(url.pathname.slice(1))) fail(`secret.example.yaml ${key}: database ${url.pathname.slice(1)} is not created by Cluster ${name}`);
  }
}
