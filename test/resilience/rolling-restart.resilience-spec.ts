import path from 'node:path';
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '@svc/config';
import { freePort, operatorCli, postgresServerAvailable, RunningPlatform, startPlatform } from '@svc/testing';
import { chatRequest } from './support/chat-request';
import { chargesByRequest } from './support/ledger';
import { servicePids, waitForReplicas } from './support/service-processes';
import { Sample, startTraffic } from './support/traffic';

/**
 * A rolling restart under load (issue 21, "Lifecycle"): the whole platform with two replicas of
 * every service (`SVC_REPLICAS`), chat traffic from four clients (half streamed), and each
 * service's older replica SIGTERMed in turn, the next one only once start.js has restarted it.
 * A SIGTERMed service stops taking messages first (its queue subscriptions drain, the other
 * replica takes the new ones), finishes what it holds, then exits: no request may fail, and at
 * the end the ledger reconciles with every served request charged once. Then a gateway is
 * SIGTERMed mid-stream: /readyz turns 503 at once, the stream still completes, the process exits 0.
 * About a minute: RESILIENCE_QUICK=1 skips it.
 */
const quick = process.env.RESILIENCE_QUICK === '1';
const describeSlow = quick || !postgresServerAvailable() ? describe.skip : describe;

const SERVICES = ['keys', 'billing', 'chat', 'media', 'audio', 'wallet'] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeSlow('a rolling restart under load', () => {
  let platform: RunningPlatform;
  const samples: Sample[] = [];

  beforeAll(async () => {
    platform = await startPlatform({
      timeoutMs: 150_000,
      env: {
        SVC_REPLICAS: SERVICES.map((s) => `${s}=2`).join(','),
        RATE_LIMITS_ENABLED: 'false',
        ABUSE_PROTECTION_ENABLED: 'false',
        LOG_LEVEL: 'info', // "<service> service ready" lines name each replica's pid
        SHUTDOWN_GRACE_MS: '10000',
      },
    });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('SIGTERM of each service in turn, one replica at a time, fails no request', async () => {
    for (const service of SERVICES) await waitForReplicas(platform, service, 2);
    const traffic = startTraffic({
      concurrency: 4,
      clientTimeoutMs: 20_000,
      request: (signal, worker) => chatRequest(platform.apiUrl, platform.adminKey, worker % 2 !== 0)(signal),
    });
    const restarts: Record<string, number> = {};
    try {
      await sleep(1_000);
      for (const service of SERVICES) {
        const [oldest] = servicePids(platform, service);
        const at = Date.now();
        process.kill(oldest, 'SIGTERM');
        await exited(oldest, 15_000);
        await waitForReplicas(platform, service, 2);
        restarts[service] = Date.now() - at;
      }
      await sleep(1_000);
    } finally {
      samples.push(...(await traffic.stop()));
    }
    const stops = stopLines(platform.output());
    process.stdout.write(
      `rolling restart: ${samples.length} requests; ms from SIGTERM to two replicas again: ${JSON.stringify(restarts)}; shutdowns (ms, unfinished): ${JSON.stringify(stops)}\n`,
    );
    const failed = samples.filter((s) => s.status !== 200 || !s.complete);
    expect(failed.map((s) => `${s.status} ${s.detail ?? ''}`)).toEqual([]);
    expect(samples.length).toBeGreaterThan(50);
    // Every SIGTERMed replica ended its own shutdown, with nothing left unfinished.
    expect(stops.map((s) => s.service).sort()).toEqual([...SERVICES].sort());
    expect(stops.filter((s) => s.unfinished !== 0)).toEqual([]);
  }, 120_000);

  it('the ledger reconciles: each served request charged once, no hold left', async () => {
    const served = samples.filter((s) => s.requestId && s.status === 200 && s.complete);
    let charges = await chargesByRequest(platform.env.BILLING_DATABASE_URL);
    for (const deadline = Date.now() + 20_000; Date.now() < deadline && served.some((s) => charges.get(s.requestId as string)?.held !== 0); await sleep(500)) {
      charges = await chargesByRequest(platform.env.BILLING_DATABASE_URL);
    }
    const wrong = served
      .map((s) => ({ id: s.requestId as string, charge: charges.get(s.requestId as string) }))
      .filter(({ charge }) => !charge || charge.reservations !== 1 || charge.held !== 0 || charge.netNano <= 0n)
      .map(({ id, charge }) => `${id}: ${JSON.stringify(charge, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
    expect(wrong).toEqual([]);
    const reconcile = await operatorCli(platform.env).billing('reconcile');
    expect(reconcile).toMatchObject({ ok: true, mismatches: [], overdueHolds: 0 });
  }, 60_000);

  it('a gateway SIGTERMed mid-stream: not ready at once, the stream completes, it exits 0', async () => {
    const port = await freePort();
    const gateway = spawn(process.execPath, ['-r', path.join(REPO_ROOT, 'tools/register-paths.js'), path.join(REPO_ROOT, 'dist/apps/gateway/src/main.js')], {
      cwd: REPO_ROOT,
      env: { ...platform.env, PORT: String(port), SHUTDOWN_GRACE_MS: '10000' },
      stdio: 'ignore',
    });
    const exit = new Promise<number | null>((resolve) => gateway.once('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
      if (
        (await fetch(`${base}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        break;
    }
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    const res = await fetch(`${base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Tell a long story' }], max_tokens: 400, stream: true }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // the stream has started
    gateway.kill('SIGTERM');
    await sleep(100);
    const during = await fetch(`${base}/readyz`).then(
      (r) => r.status,
      () => 0, // or the listener is already closed: not ready either
    );
    expect([503, 0]).toContain(during);
    let text = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += Buffer.from(chunk.value).toString();
    expect(text).toContain('data: [DONE]');
    expect(await exit).toBe(0);
  }, 60_000);
});

/** The "<service> stopped" lines of graceful shutdowns: which service, how long it took, what it left unfinished. */
function stopLines(output: string): { service: string; ms: number; unfinished: number }[] {
  return output
    .split('\n')
    .filter((line) => /"msg":"[a-z]+ stopped"/.test(line))
    .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as { service: string; ms: number; unfinished: number })
    .filter((l) => l.service !== 'gateway')
    .map(({ service, ms, unfinished }) => ({ service, ms, unfinished }));
}

/** Resolves when process `pid` is gone. */
async function exited(pid: number, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(50)) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  throw new Error(`process ${pid} did not exit within ${timeoutMs} ms of SIGTERM`);
}
