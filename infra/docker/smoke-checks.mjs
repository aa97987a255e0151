// The API half of infra/docker/smoke.sh: drives a running Compose stack through its one public
// port as a user would, then restarts an app container and NATS under traffic and checks the
// money: every request served in full was charged exactly once, none that failed was charged,
// and `billing reconcile` is clean. Prints one line per check and a JSON summary last; exits 1 on
// the first failed check.
//   SMOKE_URL=http://127.0.0.1:3000 SMOKE_ADMIN_KEY=... SMOKE_COMPOSE="docker-compose -p svc-smoke" node infra/docker/smoke-checks.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { Blob } from 'node:buffer';
import { setTimeout as sleep } from 'node:timers/promises';

const BASE = `${process.env.SMOKE_URL ?? 'http://127.0.0.1:3000'}/api/v1`;
const ADMIN = process.env.SMOKE_ADMIN_KEY;
const COMPOSE = (process.env.SMOKE_COMPOSE ?? 'docker compose').split(' ');
const TRAFFIC_CLIENTS = 4;
/** How long after a container restart requests must be served again. */
const RECOVERY_BOUND_MS = 120_000;
if (!ADMIN) throw new Error('SMOKE_ADMIN_KEY is required');

const summary = { checks: [], faults: {} };
function ok(name, detail = '') {
  summary.checks.push(name);
  process.stdout.write(`  ok  ${name}${detail ? `: ${detail}` : ''}\n`);
}
function fail(name, detail) {
  process.stdout.write(`  FAIL ${name}: ${detail}\n${JSON.stringify(summary)}\n`);
  process.exit(1);
}
function expect(name, condition, detail) {
  if (!condition) fail(name, detail);
}

function compose(...args) {
  return execFileSync(COMPOSE[0], [...COMPOSE.slice(1), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
/** An operator CLI inside its service's container; each prints JSON. */
function cli(service, ...args) {
  const out = compose('exec', '-T', service, 'node', '-r', './tools/register-paths.js', `dist/apps/${service}/src/cli/main.js`, ...args);
  return JSON.parse(out);
}
function psql(database, sql) {
  return compose('exec', '-T', 'postgres', 'psql', '-U', 'postgres', '-d', database, '-At', '-F', '\t', '-c', sql).trim();
}

async function call(path, { key = ADMIN, body, form, method } = {}) {
  const headers = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${BASE}${path}`, {
    method: method ?? (body !== undefined || form ? 'POST' : 'GET'),
    headers,
    body: form ?? (body !== undefined ? JSON.stringify(body) : undefined),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8'), json };
}

const chatBody = (stream, content = 'Hello') => ({ model: 'default', messages: [{ role: 'user', content }], max_tokens: 16, stream });

async function apiChecks() {
  const models = await call('/models');
  expect('models', models.status === 200 && models.json.data.length > 0, `${models.status} ${models.text.slice(0, 200)}`);
  ok('GET /models', `${models.json.data.length} models`);

  const plain = await call('/chat/completions', { body: chatBody(false) });
  const content = plain.json?.choices?.[0]?.message?.content;
  expect('chat', plain.status === 200 && typeof content === 'string' && content.length > 0, `${plain.status} ${plain.text.slice(0, 300)}`);
  ok('chat completion', JSON.stringify(content));

  const streamed = await call('/chat/completions', { body: chatBody(true) });
  const deltas = streamed.text
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
    .join('');
  expect(
    'chat stream',
    streamed.status === 200 && streamed.text.trimEnd().endsWith('data: [DONE]') && deltas.length > 0,
    `${streamed.status} ${streamed.text.slice(-300)}`,
  );
  ok('chat completion, streamed', JSON.stringify(deltas));

  const emb = await call('/embeddings', { body: { model: 'text-embedding-3-small', input: ['a lamp in the dark', 'a light at night'] } });
  const vectors = emb.json?.data?.map((d) => d.embedding) ?? [];
  expect('embeddings', emb.status === 200 && vectors.length === 2 && vectors[0].length > 0, `${emb.status} ${emb.text.slice(0, 300)}`);
  ok('embeddings', `2 vectors of ${vectors[0].length}`);

  const image = await call('/image/generate', {
    body: { model: 'svc-zoo-image', prompt: 'a red circle on a blue background', width: 256, height: 256, format: 'png', return_binary: true },
  });
  const png = image.bytes;
  const isPng = png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect('image', image.status === 200 && isPng && png.readUInt32BE(16) === 256 && png.readUInt32BE(20) === 256, `${image.status} ${image.text.slice(0, 200)}`);
  ok('image generation', `PNG 256x256, ${png.length} bytes`);

  const speech = await call('/audio/speech', { body: { model: 'tts-1', voice: 'slt', input: 'Hello from a private server.', response_format: 'wav' } });
  expect('speech', speech.status === 200 && speech.bytes.subarray(0, 4).toString('latin1') === 'RIFF', `${speech.status} ${speech.text.slice(0, 200)}`);
  ok('speech', `WAV, ${speech.bytes.length} bytes`);
  const form = new globalThis.FormData();
  form.set('model', 'whisper-1');
  form.set('file', new Blob([speech.bytes], { type: 'audio/wav' }), 'hello.wav');
  const transcript = await call('/audio/transcriptions', { form });
  const heard = transcript.json?.text ?? '';
  expect('transcription', transcript.status === 200 && /hello|private|server/i.test(heard), `${transcript.status} ${transcript.text.slice(0, 200)}`);
  ok('transcription of that speech', JSON.stringify(heard));
}

async function moneyChecks() {
  const accounts = cli('keys', 'accounts', 'list');
  const list = Array.isArray(accounts) ? accounts : (accounts.accounts ?? accounts.data ?? []);
  const account = list[0]?.id ?? list[0]?.accountId;
  expect('account', typeof account === 'string', JSON.stringify(accounts).slice(0, 300));

  const before = cli('billing', 'balance', '--account', account);
  const credited = cli('billing', 'credit', '--account', account, '--usd', '2.5', '--reason', 'smoke test', '--idempotency-key', `smoke-${Date.now()}`);
  const after = cli('billing', 'balance', '--account', account);
  expect(
    'credit',
    credited.status === 'applied' && nano(after.availableUsd) - nano(before.availableUsd) === 2_500_000_000n,
    `before ${JSON.stringify(before)} credit ${JSON.stringify(credited)} after ${JSON.stringify(after)}`,
  );
  ok('credit with the billing CLI', '+2.5 USD on the balance');

  // A key whose consumption limit pays for a handful of short chat answers (the default model costs
  // 0.01/0.02 USD per million tokens): served until the limit, then 402.
  const created = await call('/api_keys', {
    body: { apiKeyType: 'INFERENCE', description: 'smoke limit', consumptionLimit: { usd: 0.00001 }, limitPeriod: 'LIFETIME' },
  });
  const key = created.json?.data?.apiKey ?? created.json?.apiKey;
  expect('key with a limit', created.status === 200 || created.status === 201, `${created.status} ${created.text.slice(0, 300)}`);
  const statuses = [];
  for (let i = 0; i < 200 && !statuses.includes(402); i += 1) statuses.push((await call('/chat/completions', { key, body: chatBody(false) })).status);
  expect('consumption limit', statuses[0] === 200 && statuses.at(-1) === 402, statuses.join(','));
  ok('key with a consumption limit', `${statuses.filter((s) => s === 200).length} served, then 402`);

  const history = await call('/billing/usage-history');
  const rows = history.json?.data ?? [];
  expect('usage history', history.status === 200 && rows.length > 0, `${history.status} ${history.text.slice(0, 300)}`);
  ok('usage history', `${rows.length} entries`);
}

/** Closed-loop chat traffic (half streamed) until stopped; each answer with its request id. */
function traffic() {
  const samples = [];
  let running = true;
  const loop = async (client) => {
    for (let i = 0; running; i += 1) {
      const stream = (client + i) % 2 === 1;
      const started = Date.now();
      try {
        const res = await fetch(`${BASE}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: JSON.stringify(chatBody(stream, `Hello number ${i}`)),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        const complete = res.status === 200 && (!stream || text.trimEnd().endsWith('data: [DONE]'));
        samples.push({ at: started, status: res.status, complete, requestId: res.headers.get('x-request-id') });
        if (!complete) await sleep(100); // a client's pause before it tries again
      } catch (err) {
        samples.push({ at: started, status: 0, complete: false, requestId: null, error: String(err) });
        await sleep(200);
      }
    }
  };
  const loops = Array.from({ length: TRAFFIC_CLIENTS }, (_, c) => loop(c));
  return {
    samples,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** What one fault cost: requests that failed from its start to the next fault, and the seconds until requests succeeded again. */
function faultWindow(samples, { since, at, end, restartSeconds }) {
  const failures = samples.filter((s) => !s.complete && s.at >= since && s.at < end);
  const lastFailure = Math.max(at, ...failures.map((s) => s.at));
  const back = samples.filter((s) => s.complete && s.at > lastFailure).sort((a, b) => a.at - b.at)[0];
  return {
    restartSeconds,
    failed: failures.length,
    statuses: countBy(failures.map((s) => s.status)),
    secondsUntilServedAgain: failures.length === 0 ? 0 : back ? (back.at - at) / 1000 : null,
  };
}

async function faultChecks() {
  const load = traffic();
  await sleep(5_000);
  const faults = [
    ['restart chat container', ['restart', 'chat']],
    ['restart nats container', ['restart', 'nats']],
  ];
  const windows = [];
  for (const [name, args] of faults) {
    const since = windows.at(-1)?.end ?? 0;
    const at = Date.now();
    const took = spawnSync(COMPOSE[0], [...COMPOSE.slice(1), ...args], { encoding: 'utf8' });
    expect(name, took.status === 0, took.stderr);
    const restartSeconds = (Date.now() - at) / 1000;
    // Served again: a request started after the restart is answered in full (the chat container
    // loads its models first: tens of seconds on a busy machine).
    const back = () => load.samples.some((s) => s.complete && s.at > at + restartSeconds * 1000);
    for (const deadline = Date.now() + RECOVERY_BOUND_MS; Date.now() < deadline && !back();) await sleep(500);
    expect(`${name}: served again`, back(), `no request served within ${RECOVERY_BOUND_MS / 1000} s of the restart`);
    await sleep(5_000);
    windows.push({ name, since, at, end: Date.now(), restartSeconds });
  }
  await load.stop();
  const { samples } = load;
  const served = samples.filter((s) => s.complete);
  const failed = samples.filter((s) => !s.complete);
  for (const w of windows) summary.faults[w.name] = faultWindow(samples, w);

  // Settlement is asynchronous: wait until no reservation is held.
  const held = () => Number(psql('svc_billing', "SELECT count(*) FROM reservations WHERE status = 'HELD'"));
  for (const deadline = Date.now() + 60_000; Date.now() < deadline && held() > 0;) await sleep(1_000);
  const rows = psql(
    'svc_billing',
    `SELECT r.request_id, count(DISTINCT r.id), coalesce(-sum(l.amount_nano) FILTER (WHERE l.kind IN ('CHARGE', 'REFUND')), 0)
       FROM reservations r LEFT JOIN ledger_entries l ON l.reservation_id = r.id GROUP BY r.request_id`,
  );
  const charges = new Map(
    rows
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [id, reservations, net] = line.split('\t');
        return [id, { reservations: Number(reservations), net: BigInt(net) }];
      }),
  );
  const wrong = [];
  for (const s of served) {
    const c = s.requestId ? charges.get(s.requestId) : undefined;
    if (!c || c.reservations !== 1 || c.net <= 0n) wrong.push(`${s.requestId}: served, charged ${c?.net ?? 0} over ${c?.reservations ?? 0} reservations`);
  }
  for (const s of failed) {
    const c = s.requestId ? charges.get(s.requestId) : undefined;
    if (c && c.net !== 0n) wrong.push(`${s.requestId}: answered ${s.status}, charged ${c.net}`);
  }
  summary.faults.requests = { total: samples.length, served: served.length, failed: failed.length, statuses: countBy(samples.map((s) => s.status)) };
  expect('traffic', served.length > 20, JSON.stringify(summary.faults.requests));
  expect('one charge per served request', wrong.length === 0, wrong.slice(0, 10).join('; '));
  ok('restarts under traffic', `${served.length} served, each charged once; ${failed.length} failed, none charged`);
  const reconcile = cli('billing', 'reconcile');
  expect('reconcile', reconcile.ok === true && reconcile.mismatches.length === 0, JSON.stringify(reconcile).slice(0, 500));
  ok('billing reconcile', 'clean');
}

/** A decimal USD string ("99.998767751") in nano-USD. */
function nano(usd) {
  const [whole, fraction = ''] = String(usd).split('.');
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9));
}

function countBy(values) {
  const counts = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

/**
 * Request bodies at the gateway container's memory limit (mem_limit in docker-compose.yml): twelve
 * 39 MB bodies at once and two 50 MB ones (bench/body-memory) are each answered (413, 503 with
 * retry-after, or the route's 400; none reset), a small call beside them is served, and the
 * container is neither OOM-killed nor restarted.
 */
function bodyMemoryChecks() {
  const gateway = compose('ps', '-q', 'gateway').trim();
  const limit = Number(execFileSync('docker', ['inspect', '-f', '{{.HostConfig.Memory}}', gateway], { encoding: 'utf8' }).trim());
  const run = spawnSync(
    process.execPath,
    ['bench/body-memory/run.mjs', '--url', BASE.replace(/\/api\/v1$/, ''), '--key', ADMIN, '--container', gateway, '--settle-ms', '5000', '--json'],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  expect('body memory bench', run.status === 0, run.stderr.slice(-500));
  const report = JSON.parse(run.stdout);
  const statuses = report.results.map((r) => r.status ?? `error ${r.error}`);
  const [killed, restarts] = execFileSync('docker', ['inspect', '-f', '{{.State.OOMKilled}} {{.RestartCount}}', gateway], { encoding: 'utf8' })
    .trim()
    .split(' ');
  summary.bodies = { limitMiB: limit / 2 ** 20, counts: report.counts, memory: report.memory, oomKilled: killed === 'true', restarts: Number(restarts) };
  expect(
    'bodies answered',
    statuses.every((s) => [200, 400, 413, 503].includes(s)),
    JSON.stringify(report.counts),
  );
  expect(
    'over the limit: 413',
    statuses.slice(-2).every((s) => s === 413),
    JSON.stringify(statuses.slice(-2)),
  );
  expect(
    'small call served',
    report.results.some((r) => r.label.startsWith('small') && r.status === 200),
    JSON.stringify(report.counts),
  );
  expect('gateway alive', killed === 'false' && restarts === '0', `OOMKilled ${killed}, restarts ${restarts}`);
  const peak = report.memory.peak === undefined ? 'n/a' : `${(report.memory.peak / 2 ** 20).toFixed(0)} MiB`;
  ok('large bodies at the memory limit', `${JSON.stringify(report.counts)}, peak ${peak} of ${limit / 2 ** 20} MiB, not killed`);
}

await apiChecks();
await moneyChecks();
bodyMemoryChecks();
await faultChecks();
process.stdout.write(`${JSON.stringify(summary)}\n`);
