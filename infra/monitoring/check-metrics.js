#!/usr/bin/env node
// Every metric that an alert rule (prometheus/*.yml) or a dashboard panel (grafana/*.json) reads
// must be one the platform exports: names come from the platform's own code, not a list kept by
// hand. The gateway's registry (GatewayMetrics, with its Node defaults), each service's Node
// defaults (prefix svc_<service>_), the service helpers (watchEngine, timeEngineRequest) and every
// gaugeSource('<name>', ...) in apps/*/src. Needs `npm run build` (reads dist/).
//   node infra/monitoring/check-metrics.js [monitoring dir]
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');

const root = path.resolve(__dirname, '../..');
const dir = path.resolve(process.argv[2] ?? __dirname);
const SERVICES = ['chat', 'media', 'audio', 'billing', 'keys', 'wallet'];
/** Series Prometheus itself adds to every target. */
const PROMETHEUS_OWN = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

function exportedNames() {
  const dist = path.join(root, 'dist');
  if (!fs.existsSync(path.join(dist, 'apps/gateway/src/metrics/gateway-metrics.js'))) {
    process.stderr.write('check-metrics: dist/ is missing or stale: run `npm run build` first\n');
    process.exit(2);
  }
  require(path.join(root, 'tools/register-paths.js'));
  const { Registry, collectDefaultMetrics } = require('prom-client');
  const { GatewayMetrics } = require(path.join(dist, 'apps/gateway/src/metrics/gateway-metrics.js'));
  const service = require(path.join(dist, 'libs/messaging/src/service-metrics.js'));
  const registries = [];
  const gateway = new GatewayMetrics();
  gateway.collectDefaults();
  registries.push(gateway.registry);
  for (const name of SERVICES) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: `svc_${name}_` });
    registries.push(registry);
  }
  service.collectServiceDefaults('check');
  service.watchEngine('check', () => ({ running: 0, queued: 0 }));
  service.timeEngineRequest('check')();
  registries.push(service.serviceMetricsRegistry);

  const names = new Set();
  for (const registry of registries) {
    for (const metric of registry.getMetricsAsArray()) {
      const { name, type } = metric.get ? { name: metric.name, type: metric.type ?? typeOf(metric) } : metric;
      names.add(name);
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
    }
  }
  for (const file of sourceFiles(path.join(root, 'apps'))) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/gaugeSource\(\s*'([a-zA-Z_:][a-zA-Z0-9_:]*)'/g)) names.add(m[1]);
  }
  return names;
}

function typeOf(metric) {
  return metric.constructor.name.toLowerCase();
}

function* sourceFiles(at) {
  for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
    const p = path.join(at, entry.name);
    if (entry.isDirectory() && !['node_modules', 'generated', 'test'].includes(entry.name)) yield* sourceFiles(p);
    else if (entry.isFile() && p.endsWith('.ts') && !p.endsWith('.spec.ts') && p.includes(`${path.sep}src${path.sep}`)) yield p;
  }
}

/** Every PromQL expression of the rule files and dashboards under `at`, with where it came from. */
function expressions(at) {
  const found = [];
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(p) && !/\.test\.ya?ml$/.test(p)) {
        for (const group of YAML.parse(fs.readFileSync(p, 'utf8')).groups ?? [])
          for (const rule of group.rules ?? []) found.push({ where: `${path.relative(root, p)}: ${rule.alert ?? rule.record}`, expr: rule.expr });
      } else if (p.endsWith('.json')) {
        const visit = (node, title) => {
          if (Array.isArray(node)) return node.forEach((n) => visit(n, title));
          if (!node || typeof node !== 'object') return;
          const here = node.title ?? title;
          if (typeof node.expr === 'string') found.push({ where: `${path.relative(root, p)}: panel "${here}"`, expr: node.expr });
          if (node.query && typeof node.query.query === 'string')
            found.push({ where: `${path.relative(root, p)}: variable ${node.name}`, expr: node.query.query });
          for (const v of Object.values(node)) visit(v, here);
        };
        visit(JSON.parse(fs.readFileSync(p, 'utf8')), '');
      }
    }
  };
  walk(at);
  return found;
}

/**
 * The metric names an expression reads: identifiers right before a `{` or `[` selector or in a
 * label_values(), every `svc_` identifier outside quotes, and each `__name__=~"regex"` (which
 * must match at least one exported name).
 */
function metricsOf(expr) {
  const regexes = [...expr.matchAll(/__name__\s*=~\s*"([^"]*)"/g)].map((m) => m[1]);
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const names = new Set();
  for (const m of bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)) if (!/^(by|without|on|ignoring|group_left|group_right)$/.test(m[1])) names.add(m[1]);
  for (const m of bare.matchAll(/\b(svc_[a-zA-Z0-9_:]+)/g)) names.add(m[1]);
  for (const m of bare.matchAll(/label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/g)) names.add(m[1]);
  return { names: [...names], regexes };
}

const exported = exportedNames();
const problems = [];
const used = expressions(dir);
if (used.length === 0) problems.push(`no rule or panel expressions found under ${dir}`);
for (const { where, expr } of used) {
  const { names, regexes } = metricsOf(expr);
  if (names.length === 0 && regexes.length === 0) problems.push(`${where}: reads no metric`);
  for (const name of names) if (!exported.has(name) && !PROMETHEUS_OWN.has(name)) problems.push(`${where}: ${name} is not a metric the platform exports`);
  for (const re of regexes) {
    const anchored = new RegExp(`^(?:${re})$`);
    if (![...exported].some((n) => anchored.test(n))) problems.push(`${where}: __name__=~"${re}" matches no exported metric`);
  }
}
if (problems.length) {
  process.stderr.write(`${problems.map((p) => `error: ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`monitoring OK: ${used.length} expressions read only exported metrics (${exported.size} names known)\n`);
