import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import { Client } from 'pg';
import { REPO_ROOT } from '@svc/config';
import { BILLING, healthSubject, ReserveRequest } from '@svc/contracts';
import { dropDatabase, runMigrations, serviceMigrationsDir } from '@svc/database';
import { RpcClient } from '@svc/messaging';
import { formatAmount } from '@svc/pricing';
import { startPrivateNats } from '@svc/testing';
import { BenchOptions, parseBenchArgs, USAGE } from './args';
import { cpuMs, Latency, summarize } from './stats';
import { errorMessage } from '@svc/errors';

/**
 * Billing through its real path: this process plays the gateway and the chat service, sending
 * BILLING.RESERVE and BILLING.SETTLE over a private nats-server to the built billing service
 * (child processes, `dist/apps/billing/src/main.js`) on a fresh Postgres database.
 */
const PRICING = { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } };
const WORST = { kind: 'text' as const, promptTokens: 120, completionTokens: 512 };
const ACTUAL = { kind: 'text' as const, promptTokens: 97, completionTokens: 200 };
const CREDIT_NANO = 1_000_000_000_000n; // 1,000 USD per account: never the limiting factor here.
const COST_NANO = 97n * 10n + 200n * 20n;

interface Throughput {
  label: string;
  accounts: number;
  concurrency: number;
  seconds: number;
  pairs: number;
  pairsPerSecond: number;
  reserve: Latency;
  settle: Latency;
  billingCpuMsPerPair: number;
}

async function main(): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2), {
    database: 'postgresql://postgres@127.0.0.1:5432/svc_bench_billing',
    out: path.join(REPO_ROOT, 'bench/billing/last-run.json'),
  });
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const service = path.join(REPO_ROOT, 'dist/apps/billing/src/main.js');
  if (!existsSync(service)) throw new Error(`${service} is missing: run \`npm run build\` first`);

  await dropDatabase(options.database);
  await runMigrations({ databaseUrl: options.database, migrationsDir: serviceMigrationsDir('billing') });
  const nats = await startPrivateNats();
  const replicas = Array.from({ length: options.replicas }, () => startBilling(service, nats.url, options.database));
  const nc = await connect({ servers: nats.url, noAsyncTraces: true });
  const rpc = new RpcClient(nc, 10_000);
  const sql = new Client({ connectionString: options.database });
  await sql.connect();
  const stop = async () => {
    await nc.close().catch(() => undefined);
    await sql.end().catch(() => undefined);
    await Promise.all(replicas.map((r) => stopChild(r.process)));
    await nats.stop();
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  try {
    await Promise.all(replicas.map((r) => r.ready));
    const accounts = Array.from({ length: Math.max(options.accounts, 1) }, () => randomUUID());
    for (const id of accounts) await sql.query(`SELECT billing_adjust($1, 'CREDIT', $2, 'bench', NULL)`, [id, CREDIT_NANO.toString()]);

    const baseline = await sequentialHealth(rpc, options.latencyRequests);
    const latency = await sequentialReserve(rpc, accounts[0], options.latencyRequests);
    const spread = await throughput(rpc, replicas, accounts, options, 'spread over accounts');
    const hot = await throughput(rpc, replicas, accounts.slice(0, 1), options, 'one hot account');
    const check = await reconcile(sql, accounts);
    const result = {
      date: new Date().toISOString(),
      machine: machine(),
      options,
      baselineRoundTrip: baseline,
      hotPathReserve: latency,
      throughput: [spread, hot],
      check,
    };
    writeFileSync(options.out, `${JSON.stringify(result, null, 2)}\n`);
    printReport(baseline, latency, [spread, hot], check, options);
  } finally {
    await stop();
  }
}

interface Replica {
  process: ChildProcess;
  ready: Promise<void>;
}

function startBilling(script: string, natsUrl: string, databaseUrl: string): Replica {
  const env = {
    ...process.env,
    NATS_URL: natsUrl,
    BILLING_DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'info',
    BILLING_MIGRATE_ON_BOOT: 'false',
    BILLING_SWEEP_INTERVAL_MS: '60000',
  };
  const child = spawn(process.execPath, ['-r', path.join(REPO_ROOT, 'tools/register-paths.js'), script], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('billing service ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the billing service exited with ${code}:\n${out.slice(-2000)}`)));
    setTimeout(() => reject(new Error('the billing service did not start within 60 s')), 60_000).unref();
  });
  return { process: child, ready };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function reserveRequest(accountId: string): ReserveRequest {
  return {
    reservationId: randomUUID(),
    requestId: randomUUID().replace(/-/g, '').slice(0, 16),
    accountId,
    apiKeyId: '00000000-0000-4000-8000-000000000001',
    keyLimits: { usd: null, diem: null, period: 'EPOCH' },
    model: { id: 'bench-model', name: 'Bench model', type: 'text' },
    pricing: PRICING,
    worstCase: WORST,
  };
}

const elapsedMs = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** The transport alone: a round trip to the service's health handler (one `SELECT 1`), for comparison. */
async function sequentialHealth(rpc: RpcClient, count: number): Promise<Latency> {
  const samples: number[] = [];
  for (let i = 0; i < 300 + count; i++) {
    const start = process.hrtime.bigint();
    await rpc.send(healthSubject('billing'), {});
    if (i >= 300) samples.push(elapsedMs(start));
  }
  return summarize(samples);
}

/** What the gateway's billing stage awaits per request: one reservation round trip, nothing else in flight. */
async function sequentialReserve(rpc: RpcClient, accountId: string, count: number): Promise<Latency> {
  const samples: number[] = [];
  for (let i = 0; i < 300 + count; i++) {
    const request = reserveRequest(accountId);
    const start = process.hrtime.bigint();
    await rpc.send(BILLING.RESERVE, request);
    if (i >= 300) samples.push(elapsedMs(start));
    // Settled right away, off the clock, so the account does not run out of available credit.
    await rpc.send(BILLING.SETTLE, { reservationId: request.reservationId, source: 'service', outcome: 'completed', usage: ACTUAL });
  }
  return summarize(samples);
}

async function throughput(rpc: RpcClient, replicas: Replica[], accounts: string[], options: BenchOptions, label: string): Promise<Throughput> {
  const reserve: number[] = [];
  const settle: number[] = [];
  const cpuBefore = replicas.reduce((n, r) => n + cpuMs(r.process.pid!, (f) => readFileSync(f, 'utf8')), 0);
  const started = Date.now();
  const deadline = started + options.durationSeconds * 1000;
  let next = 0;
  const loop = async () => {
    while (Date.now() < deadline) {
      const request = reserveRequest(accounts[next++ % accounts.length]);
      let t = process.hrtime.bigint();
      await rpc.send(BILLING.RESERVE, request);
      reserve.push(elapsedMs(t));
      t = process.hrtime.bigint();
      await rpc.send(BILLING.SETTLE, { reservationId: request.reservationId, source: 'service', outcome: 'completed', usage: ACTUAL });
      settle.push(elapsedMs(t));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  const seconds = (Date.now() - started) / 1000;
  const cpu = replicas.reduce((n, r) => n + cpuMs(r.process.pid!, (f) => readFileSync(f, 'utf8')), 0) - cpuBefore;
  return {
    label,
    accounts: accounts.length,
    concurrency: options.concurrency,
    seconds,
    pairs: settle.length,
    pairsPerSecond: settle.length / seconds,
    reserve: summarize(reserve),
    settle: summarize(settle),
    billingCpuMsPerPair: cpu / Math.max(1, settle.length),
  };
}

/** Every account ends at exactly its credit minus its settled charges, with nothing held. */
async function reconcile(sql: Client, accounts: string[]) {
  const { rows } = await sql.query<{ id: string; balance: string; held: string; charged: string; open: number }>(
    `SELECT a.id, a.balance_usd_nano::text AS balance, a.held_usd_nano::text AS held,
            (SELECT coalesce(sum(charged_nano), 0)::text FROM reservations r WHERE r.account_id = a.id) AS charged,
            (SELECT count(*)::int FROM reservations r WHERE r.account_id = a.id AND r.status = 'HELD') AS open
     FROM billing_accounts a WHERE a.id = ANY($1::uuid[])`,
    [accounts],
  );
  const wrong = rows.filter((r) => BigInt(r.balance) !== CREDIT_NANO - BigInt(r.charged) || r.held !== '0' || r.open !== 0);
  const charged = rows.reduce((n, r) => n + BigInt(r.charged), 0n);
  return {
    accounts: rows.length,
    settledRequests: Number(charged / COST_NANO),
    exact: wrong.length === 0 && charged % COST_NANO === 0n,
    chargedUsd: formatAmount(charged),
  };
}

function machine() {
  return { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load: os.loadavg().map((l) => Math.round(l * 100) / 100) };
}

function printReport(baseline: Latency, latency: Latency, runs: Throughput[], check: Awaited<ReturnType<typeof reconcile>>, options: BenchOptions): void {
  const ms = (n: number) => `${n.toFixed(3)} ms`;
  const lines = [
    '',
    `billing bench: ${options.replicas} billing replica(s), ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}`,
    '',
    `hot path: one reservation round trip (what the gateway awaits), ${latency.count} sequential requests`,
    `  p50 ${ms(latency.p50)}   p90 ${ms(latency.p90)}   p99 ${ms(latency.p99)}   max ${ms(latency.max)}   target p50 < 1 ms: ${latency.p50 < 1 ? 'PASS' : 'FAIL'}`,
    `  for comparison, a health round trip to the same service: p50 ${ms(baseline.p50)}   p90 ${ms(baseline.p90)}   p99 ${ms(baseline.p99)}`,
    '',
    'throughput: reserve + settle pairs through NATS, the service and Postgres',
  ];
  for (const r of runs) {
    lines.push(
      `  ${r.label} (${r.accounts} account(s), ${r.concurrency} in flight, ${r.seconds.toFixed(1)} s): ${Math.round(r.pairsPerSecond)} pairs/s` +
        `  reserve p50 ${ms(r.reserve.p50)} p99 ${ms(r.reserve.p99)}  settle p50 ${ms(r.settle.p50)} p99 ${ms(r.settle.p99)}  billing CPU ${r.billingCpuMsPerPair.toFixed(3)} ms/pair`,
    );
  }
  lines.push(
    '',
    `check: ${check.settledRequests} settled requests, ${check.chargedUsd} USD charged over ${check.accounts} accounts, balances exact and nothing held: ${check.exact ? 'YES' : 'NO'}`,
    '',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:billing: ${errorMessage(err)}\n`);
  process.exitCode = 1;
});
