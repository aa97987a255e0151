#!/usr/bin/env node
// `node bench/console/route-lookup.js`: route lookup cost of an API path, with and without the console's two routes (interleaved rounds).
const FindMyWay = require('find-my-way');
const paths = [
  'chat/completions',
  'images/generations',
  'image/generate',
  'models',
  'models/:id',
  'api_keys',
  'api_keys/:id',
  'api_keys/rate_limits',
  'billing/balance',
  'billing/usage-history',
  'audio/speech',
  'embeddings',
  'responses',
  'characters',
  'characters/:slug',
];
function router(withConsole) {
  const r = FindMyWay({ ignoreTrailingSlash: true });
  for (const p of paths) for (const m of ['GET', 'POST']) r.on(m, `/api/v1/${p}`, () => {});
  for (const p of ['/healthz', '/livez', '/readyz', '/metrics']) r.on('GET', p, () => {});
  if (withConsole) {
    r.on('GET', '/console', () => {});
    r.on('GET', '/console/*', () => {});
  }
  return r;
}
const rs = { without: router(false), with: router(true) };
const urls = ['/api/v1/chat/completions', '/api/v1/models/svc-tiny-random', '/api/v1/billing/balance', '/healthz'];
const N = 500_000,
  times = { without: [], with: [] };
for (let round = 0; round < 16; round++)
  for (const name of round % 2 ? ['with', 'without'] : ['without', 'with']) {
    const r = rs[name];
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) if (!r.find('POST', urls[i & 3]) && i < 0) throw 0;
    times[name].push(Number(process.hrtime.bigint() - t0) / N);
  }
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(
  JSON.stringify({
    nsPerLookupMedian: { without: med(times.without).toFixed(1), with: med(times.with).toFixed(1) },
    min: { without: Math.min(...times.without).toFixed(1), with: Math.min(...times.with).toFixed(1) },
  }),
);
