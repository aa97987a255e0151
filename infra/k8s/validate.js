#!/usr/bin/env node
// Offline checks for the Kubernetes manifests (no cluster, no schema download): every file the
// kustomization names exists and parses; each object has a known apiVersion/kind, a valid name
// and the fields its kind needs; and the objects agree with each other (selectors match pod
// labels, Services/Ingress/HPA/PDB point at things that exist, a StatefulSet's serviceName is a
// headless Service of its pods, ConfigMap/Secret/PVC references resolve, probe ports exist), and the
// catalog is config/models.yaml's generated copy (catalog-copy.js). Not a full OpenAPI validation: see README.md.
//   node infra/k8s/validate.js [dir]     (default: base/)
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const catalogCopy = require('./catalog-copy');

const dir = path.resolve(process.argv[2] || path.join(__dirname, 'base'));
const errors = [];
const notes = [];
const fail = (where, msg) => errors.push(`${where}: ${msg}`);

const KINDS = {
  v1: ['Namespace', 'ConfigMap', 'Secret', 'Service', 'PersistentVolumeClaim', 'ServiceAccount'],
  'apps/v1': ['Deployment', 'StatefulSet'],
  'batch/v1': ['Job', 'CronJob'],
  'networking.k8s.io/v1': ['Ingress', 'NetworkPolicy'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'policy/v1': ['PodDisruptionBudget'],
};
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const TOP_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'data', 'stringData', 'binaryData', 'type', 'immutable']);
const CONTAINER_FIELDS = new Set([
  'name',
  'image',
  'command',
  'args',
  'workingDir',
  'ports',
  'envFrom',
  'env',
  'resources',
  'volumeMounts',
  'volumeDevices',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
  'securityContext',
  'imagePullPolicy',
  'stdin',
  'stdinOnce',
  'tty',
  'terminationMessagePath',
  'terminationMessagePolicy',
  'resizePolicy',
  'restartPolicy',
]);
const POD_FIELDS = new Set([
  'containers',
  'initContainers',
  'volumes',
  'restartPolicy',
  'securityContext',
  'serviceAccountName',
  'automountServiceAccountToken',
  'terminationGracePeriodSeconds',
  'nodeSelector',
  'affinity',
  'tolerations',
  'topologySpreadConstraints',
  'priorityClassName',
  'imagePullSecrets',
  'dnsPolicy',
  'hostname',
  'subdomain',
  'enableServiceLinks',
  'shareProcessNamespace',
  'runtimeClassName',
]);

function readYamlDocs(file) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'));
  for (const doc of docs) if (doc.errors.length) fail(rel(file), `YAML: ${doc.errors[0].message}`);
  return docs.map((d) => d.toJS()).filter((d) => d !== null && d !== undefined);
}
const rel = (file) => path.relative(process.cwd(), file);
const get = (obj, dotted) => dotted.split('.').reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), obj);

// 1. The kustomization and the files it names.
const kustomizationFile = path.join(dir, 'kustomization.yaml');
if (!fs.existsSync(kustomizationFile)) {
  fail(rel(dir), 'no kustomization.yaml');
  finish();
}
const kustomization = readYamlDocs(kustomizationFile)[0] || {};
const objects = [];
const generated = { ConfigMap: new Map(), Secret: new Map() };
for (const entry of kustomization.resources || []) {
  const file = path.join(dir, entry);
  if (!fs.existsSync(file)) {
    fail('kustomization.yaml', `resource ${entry} does not exist`);
    continue;
  }
  if (fs.statSync(file).isDirectory()) {
    fail('kustomization.yaml', `resource ${entry} is a directory: validate it separately`);
    continue;
  }
  for (const obj of readYamlDocs(file)) objects.push({ obj, where: `${entry} ${obj.kind || '?'}/${get(obj, 'metadata.name') || '?'}` });
}
for (const [kind, key] of [
  ['ConfigMap', 'configMapGenerator'],
  ['Secret', 'secretGenerator'],
]) {
  for (const gen of kustomization[key] || []) {
    if (!gen.name) fail('kustomization.yaml', `${key} entry without a name`);
    const keys = new Map();
    for (const spec of gen.files || []) {
      const [k, f] = spec.includes('=') ? spec.split('=') : [path.basename(spec), spec];
      const file = path.join(dir, f);
      if (!fs.existsSync(file)) fail('kustomization.yaml', `${key} ${gen.name}: file ${f} does not exist`);
      else keys.set(k, file);
    }
    for (const lit of gen.literals || []) keys.set(lit.split('=')[0], null);
    generated[kind].set(gen.name, keys);
  }
}
// Manifests in the tree that the kustomization does not name are forgotten, unless they are templates.
const listed = new Set((kustomization.resources || []).map((r) => path.normalize(r)));
const generatorFiles = new Set(
  [...generated.ConfigMap.values(), ...generated.Secret.values()]
    .flatMap((m) => [...m.values()])
    .filter(Boolean)
    .map((f) => path.relative(dir, f)),
);
const templates = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.ya?ml$/.test(e.name) && e.name !== 'kustomization.yaml') {
      const r = path.relative(dir, p);
      if (/\.example\.ya?ml$/.test(e.name)) templates.push(p);
      else if (!listed.has(r) && !generatorFiles.has(r)) fail(r, 'not named in kustomization.yaml (rename to *.example.yaml if it is a template)');
    }
  }
})(dir);

// Secrets that must be created out of band are described by *.example.yaml templates.
const templateSecrets = new Map();
for (const file of templates) {
  for (const obj of readYamlDocs(file)) {
    if (obj.kind === 'Secret') templateSecrets.set(get(obj, 'metadata.name'), new Set(Object.keys({ ...obj.data, ...obj.stringData })));
  }
}

// 2. Each object on its own.
const byKind = (kind) => objects.filter(({ obj }) => obj.kind === kind);
for (const { obj, where } of objects) {
  if (!KINDS[obj.apiVersion]) fail(where, `unknown apiVersion ${obj.apiVersion}`);
  else if (!KINDS[obj.apiVersion].includes(obj.kind)) fail(where, `kind ${obj.kind} is not in ${obj.apiVersion} (or not one this checker knows)`);
  for (const key of Object.keys(obj)) if (!TOP_FIELDS.has(key)) fail(where, `unknown top-level field ${key}`);
  const name = get(obj, 'metadata.name');
  if (!name) fail(where, 'metadata.name is missing');
  else if (!(obj.kind === 'ConfigMap' || obj.kind === 'Secret' ? DNS_SUBDOMAIN : DNS_LABEL).test(name) || name.length > 63)
    fail(where, `metadata.name ${name} is not a valid DNS name`);
  const ns = get(obj, 'metadata.namespace');
  if (ns && kustomization.namespace && ns !== kustomization.namespace)
    fail(where, `namespace ${ns} differs from the kustomization's ${kustomization.namespace}`);
}
const namespaces = byKind('Namespace').map(({ obj }) => obj.metadata.name);
if (kustomization.namespace && !namespaces.includes(kustomization.namespace))
  notes.push(`namespace ${kustomization.namespace} is not created here; it must exist`);

const configMaps = new Map([...generated.ConfigMap]);
for (const { obj } of byKind('ConfigMap')) configMaps.set(obj.metadata.name, new Map(Object.keys(obj.data || {}).map((k) => [k, null])));
const secrets = new Map([...templateSecrets]);
for (const [n, keys] of generated.Secret) secrets.set(n, new Set(keys.keys()));
for (const { obj } of byKind('Secret')) secrets.set(obj.metadata.name, new Set(Object.keys({ ...obj.data, ...obj.stringData })));
const claims = new Set(byKind('PersistentVolumeClaim').map(({ obj }) => obj.metadata.name));

for (const { obj, where } of byKind('ConfigMap')) {
  for (const [k, v] of Object.entries(obj.data || {})) if (typeof v !== 'string') fail(where, `data.${k} must be a string (quote it)`);
}
for (const { obj, where } of byKind('PersistentVolumeClaim')) {
  if (!(get(obj, 'spec.accessModes') || []).length) fail(where, 'spec.accessModes is empty');
  if (!get(obj, 'spec.resources.requests.storage')) fail(where, 'spec.resources.requests.storage is missing');
}

function checkContainer(c, where, podVolumes, isInit) {
  const at = `${where} container ${c.name || '?'}`;
  for (const key of Object.keys(c)) if (!CONTAINER_FIELDS.has(key)) fail(at, `unknown field ${key}`);
  if (!c.name || !DNS_LABEL.test(c.name)) fail(at, 'name is missing or invalid');
  if (!c.image) fail(at, 'image is missing');
  for (const kind of ['requests', 'limits'])
    for (const r of ['cpu', 'memory']) if (!get(c, `resources.${kind}.${r}`)) fail(at, `resources.${kind}.${r} is missing`);
  if (get(c, 'securityContext.allowPrivilegeEscalation') !== false) fail(at, 'securityContext.allowPrivilegeEscalation must be false');
  const ports = new Set((c.ports || []).flatMap((p) => [p.name, p.containerPort]).filter((p) => p !== undefined));
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const p = c[probe];
    if (!p) continue;
    if (isInit) fail(at, `${probe} on an init container`);
    const handlers = ['httpGet', 'tcpSocket', 'exec', 'grpc'].filter((h) => p[h]);
    if (handlers.length !== 1) fail(at, `${probe} needs exactly one of httpGet, tcpSocket, exec, grpc`);
    const port = get(p, 'httpGet.port') ?? get(p, 'tcpSocket.port');
    if (port !== undefined && !ports.has(port)) fail(at, `${probe} port ${port} is not a declared container port`);
    if (p.exec && !Array.isArray(p.exec.command)) fail(at, `${probe}.exec.command must be a list`);
  }
  for (const m of c.volumeMounts || []) if (!podVolumes.has(m.name)) fail(at, `volumeMount ${m.name} has no volume`);
  for (const e of c.envFrom || []) {
    const cm = get(e, 'configMapRef.name');
    const sec = get(e, 'secretRef.name');
    if (cm && !configMaps.has(cm) && !get(e, 'configMapRef.optional')) fail(at, `envFrom ConfigMap ${cm} does not exist`);
    if (sec && !secrets.has(sec) && !get(e, 'secretRef.optional')) fail(at, `envFrom Secret ${sec} does not exist (nor a *.example.yaml template)`);
  }
  for (const e of c.env || []) {
    if (!e.name) fail(at, 'env entry without a name');
    if (e.value !== undefined && typeof e.value !== 'string') fail(at, `env ${e.name}: value must be a string (quote it)`);
    const sk = get(e, 'valueFrom.secretKeyRef');
    const ck = get(e, 'valueFrom.configMapKeyRef');
    for (const [ref, store, what] of [
      [sk, secrets, 'Secret'],
      [ck, configMaps, 'ConfigMap'],
    ]) {
      if (!ref || ref.optional) continue;
      const keys = store.get(ref.name);
      if (!keys) fail(at, `env ${e.name}: ${what} ${ref.name} does not exist`);
      else if (!keys.has(ref.key)) fail(at, `env ${e.name}: ${what} ${ref.name} has no key ${ref.key}`);
    }
  }
}

function checkPodTemplate(template, where, { requireSelectorOf, extraVolumes = [] } = {}) {
  const spec = get(template, 'spec') || {};
  for (const key of Object.keys(spec)) if (!POD_FIELDS.has(key)) fail(where, `unknown pod spec field ${key}`);
  if (get(spec, 'securityContext.runAsNonRoot') !== true) fail(where, 'pod securityContext.runAsNonRoot must be true');
  const volumes = new Set(extraVolumes);
  for (const v of spec.volumes || []) {
    volumes.add(v.name);
    const cm = get(v, 'configMap.name');
    const sec = get(v, 'secret.secretName');
    const pvc = get(v, 'persistentVolumeClaim.claimName');
    if (cm && !configMaps.has(cm)) fail(where, `volume ${v.name}: ConfigMap ${cm} does not exist`);
    if (sec && !secrets.has(sec)) fail(where, `volume ${v.name}: Secret ${sec} does not exist`);
    if (pvc && !claims.has(pvc)) fail(where, `volume ${v.name}: PersistentVolumeClaim ${pvc} does not exist`);
  }
  if (!(spec.containers || []).length) fail(where, 'no containers');
  for (const c of spec.containers || []) checkContainer(c, where, volumes, false);
  for (const c of spec.initContainers || []) checkContainer(c, where, volumes, true);
  if (requireSelectorOf) {
    const labels = get(template, 'metadata.labels') || {};
    const match = get(requireSelectorOf, 'matchLabels') || {};
    if (!Object.keys(match).length) fail(where, 'spec.selector.matchLabels is empty');
    for (const [k, v] of Object.entries(match)) if (labels[k] !== v) fail(where, `selector ${k}=${v} does not match the pod template labels`);
  }
}

const workloads = [];
for (const { obj, where } of [...byKind('Deployment'), ...byKind('StatefulSet')]) {
  // A StatefulSet's volumeClaimTemplates are volumes of each pod (one claim per pod).
  const claimTemplates = (get(obj, 'spec.volumeClaimTemplates') || []).map((t) => get(t, 'metadata.name'));
  for (const t of get(obj, 'spec.volumeClaimTemplates') || []) {
    const at = `${where} volumeClaimTemplate ${get(t, 'metadata.name') || '?'}`;
    if (!get(t, 'metadata.name')) fail(at, 'metadata.name is missing');
    if (!(get(t, 'spec.accessModes') || []).length) fail(at, 'spec.accessModes is empty');
    if (!get(t, 'spec.resources.requests.storage')) fail(at, 'spec.resources.requests.storage is missing');
  }
  checkPodTemplate(get(obj, 'spec.template'), where, { requireSelectorOf: get(obj, 'spec.selector'), extraVolumes: claimTemplates });
  workloads.push({
    obj,
    labels: get(obj, 'spec.template.metadata.labels') || {},
    ports: (get(obj, 'spec.template.spec.containers') || []).flatMap((c) => c.ports || []),
  });
}
for (const { obj, where } of byKind('Job')) {
  checkPodTemplate(get(obj, 'spec.template'), where);
  if (!['Never', 'OnFailure'].includes(get(obj, 'spec.template.spec.restartPolicy'))) fail(where, 'a Job pod needs restartPolicy Never or OnFailure');
}
const selects = (selector, labels) => Object.keys(selector || {}).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

// 3. Objects that point at others.
const services = new Map();
for (const { obj, where } of byKind('Service')) {
  services.set(obj.metadata.name, obj);
  const targets = workloads.filter((w) => selects(get(obj, 'spec.selector'), w.labels));
  if (!targets.length) fail(where, 'spec.selector matches no pod template');
  for (const p of get(obj, 'spec.ports') || []) {
    if (!Number.isInteger(p.port)) fail(where, `port ${p.name || '?'}: port must be a number`);
    if (typeof p.targetPort === 'string' && !targets.some((w) => w.ports.some((cp) => cp.name === p.targetPort)))
      fail(where, `targetPort ${p.targetPort} is not a container port name of the selected pods`);
  }
}
// A StatefulSet's serviceName must be a headless Service selecting its pods (the pods' DNS names).
for (const { obj, where } of byKind('StatefulSet')) {
  const svc = services.get(get(obj, 'spec.serviceName'));
  if (!svc) fail(where, `serviceName ${get(obj, 'spec.serviceName')} is not a Service here`);
  else {
    if (get(svc, 'spec.clusterIP') !== 'None') fail(where, `Service ${svc.metadata.name} must be headless (clusterIP: None) to name each pod`);
    if (!selects(get(svc, 'spec.selector'), get(obj, 'spec.template.metadata.labels') || {}))
      fail(where, `Service ${svc.metadata.name} does not select its pods`);
  }
}
for (const { obj, where } of byKind('Ingress')) {
  for (const rule of get(obj, 'spec.rules') || []) {
    for (const p of get(rule, 'http.paths') || []) {
      if (!['Prefix', 'Exact', 'ImplementationSpecific'].includes(p.pathType)) fail(where, `path ${p.path}: pathType ${p.pathType} is invalid`);
      const svcName = get(p, 'backend.service.name');
      const svc = services.get(svcName);
      if (!svc) fail(where, `backend Service ${svcName} does not exist`);
      else {
        const port = get(p, 'backend.service.port');
        const ok = (get(svc, 'spec.ports') || []).some((sp) => (port && port.name !== undefined ? sp.name === port.name : sp.port === (port && port.number)));
        if (!ok) fail(where, `backend Service ${svcName} has no port ${JSON.stringify(port)}`);
      }
    }
  }
}
for (const { obj, where } of byKind('HorizontalPodAutoscaler')) {
  const ref = get(obj, 'spec.scaleTargetRef') || {};
  const target = byKind(ref.kind || '').find((o) => o.obj.metadata.name === ref.name);
  if (!target) fail(where, `scaleTargetRef ${ref.kind}/${ref.name} does not exist`);
  else {
    if (get(target.obj, 'spec.replicas') !== undefined) fail(where, `${ref.name} sets spec.replicas, which fights the autoscaler on every apply`);
    const usesCpu = (get(obj, 'spec.metrics') || []).some((m) => get(m, 'resource.name') === 'cpu');
    const containers = get(target.obj, 'spec.template.spec.containers') || [];
    if (usesCpu && containers.some((c) => !get(c, 'resources.requests.cpu'))) fail(where, 'CPU utilization target needs cpu requests on every container');
  }
  const min = get(obj, 'spec.minReplicas') ?? 1;
  if (!(min >= 1 && min <= get(obj, 'spec.maxReplicas'))) fail(where, 'needs 1 <= minReplicas <= maxReplicas');
  if (!(get(obj, 'spec.metrics') || []).length) fail(where, 'spec.metrics is empty');
}
for (const { obj, where } of byKind('PodDisruptionBudget')) {
  const has = ['minAvailable', 'maxUnavailable'].filter((k) => get(obj, `spec.${k}`) !== undefined);
  if (has.length !== 1) fail(where, 'needs exactly one of minAvailable, maxUnavailable');
  const matched = workloads.filter((w) => selects(get(obj, 'spec.selector.matchLabels'), w.labels));
  if (!matched.length) fail(where, 'selector matches no pod template');
  const hpa = byKind('HorizontalPodAutoscaler').find((h) => matched.some((w) => w.obj.metadata.name === get(h.obj, 'spec.scaleTargetRef.name')));
  const replicas = hpa ? get(hpa.obj, 'spec.minReplicas') : Math.min(...matched.map((w) => get(w.obj, 'spec.replicas') ?? 1));
  if (Number.isInteger(get(obj, 'spec.minAvailable')) && get(obj, 'spec.minAvailable') >= replicas)
    fail(where, `minAvailable ${get(obj, 'spec.minAvailable')} >= ${replicas} replicas blocks every voluntary eviction`);
}

// 4. The catalog the ConfigMap generator ships: the platform's own schema when it has been built,
// and (svc-catalog) exactly what catalog-copy.js generates from config/models.yaml, so it cannot drift.
for (const [name, keys] of generated.ConfigMap) {
  for (const [key, file] of keys) {
    if (!file || !/\.ya?ml$/.test(key)) continue;
    const docs = readYamlDocs(file);
    if (!docs[0] || !Array.isArray(docs[0].models)) fail(rel(file), `ConfigMap ${name}/${key} must be a catalog with a models list`);
    if (name === 'svc-catalog') {
      const problem = catalogCopy.copyProblem(catalogCopy.SOURCE, file);
      if (problem) fail(rel(file), problem);
    }
    checkCatalog(file, name, key);
  }
}

function checkCatalog(file, name, key) {
  const root = path.resolve(__dirname, '../..');
  const built = path.join(root, 'dist/libs/catalog/src/index.js');
  if (!fs.existsSync(built)) return notes.push(`catalog ${name}/${key}: schema check skipped (run npm run build first)`);
  require(path.join(root, 'tools/register-paths.js'));
  const { loadCatalog } = require(built);
  try {
    loadCatalog(file, process.env);
  } catch (err) {
    fail(rel(file), err.message);
  }
}

finish();

function finish() {
  for (const n of notes) process.stdout.write(`note: ${n}\n`);
  if (errors.length) {
    process.stderr.write(`${errors.map((e) => `error: ${e}`).join('\n')}\n${errors.length} problem(s) in ${rel(dir)}\n`);
    process.exit(1);
  }
  process.stdout.write(`k8s manifests OK: ${objects.length} objects in ${rel(dir) || '.'}\n`);
  process.exit(0);
}
