import { Client } from 'pg';
import { operatorCli } from '@svc/testing';
import { chatRequest } from '../support/chat-request';
import { armKill, BALANCER, clusterCli, clusterEnv, pgPrimary, sleep } from './support/cluster';
import { describeFailure, failedAfter, underLoad } from './support/load';
import { wronglyCharged } from '../support/charge-check';
import { missingProbeWrites, startProbeWrites } from './support/probe-writes';
import { recordResult } from './support/results';

/**
 * The PostgreSQL primary killed (SIGKILL of its process group) under chat load and a stream of
 * acknowledged INSERTs, then the standby promoted (`npm run cluster -- failover`, which also
 * points the proxy at it). Replication is synchronous, so every acknowledged commit is on the
 * standby: every probe write, every settled charge. Writes resume through the same address.
 */
describe('the PostgreSQL primary killed and the standby promoted, under load', () => {
  let env: Record<string, string>;
  beforeAll(async () => (env = await clusterEnv()));

  async function settledReservations(): Promise<Set<string>> {
    const db = new Client({ connectionString: env.BILLING_DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string }>(`SELECT id FROM reservations WHERE status <> 'HELD'`);
      return new Set(rows.map((r) => r.id));
    } finally {
      await db.end();
    }
  }

  it('writes resume on the promoted standby; no acknowledged write or settled charge is lost; the ledger reconciles', async () => {
    const postgresUrl = env.BILLING_DATABASE_URL.replace(/\/[^/]+$/, '/postgres');
    // Some charges settled before the crash, to look for after it (billing settles in batches).
    await Promise.all(Array.from({ length: 8 }, (_, i) => chatRequest(BALANCER, env.SVC_ADMIN_KEY, i % 2 === 1)(AbortSignal.timeout(30_000))));
    for (const deadline = Date.now() + 15_000; Date.now() < deadline && (await settledReservations()).size === 0;) await sleep(250);
    const probe = await startProbeWrites(postgresUrl);
    await sleep(500);
    let settledBefore = new Set<string>();
    let killedAt = 0;
    let failoverMs = 0;
    /** Of the failover, what the command itself took (promotion and the proxy's switch), without starting Node. */
    let promoteMs = 0;
    const kill = armKill(pgPrimary());
    const { run, at } = await underLoad(
      env.SVC_ADMIN_KEY,
      async (now) => {
        settledBefore = await settledReservations(); // a few ms before the crash
        const at = now();
        kill();
        killedAt = probe.now();
        const started = Date.now();
        const said = await clusterCli('failover');
        failoverMs = Date.now() - started;
        promoteMs = Number(/in (\d+) ms/.exec(said)?.[1]);
        return at;
      },
      10_000,
    );
    await probe.stop();
    const firstWriteAfter = probe.acknowledged.find((w) => w.at > killedAt);
    const writesResumedMs = firstWriteAfter ? Math.round(firstWriteAfter.at - killedAt) : null;
    const lostWrites = await missingProbeWrites(
      postgresUrl,
      probe.acknowledged.map((w) => w.id),
    );
    const settledAfter = await settledReservations();
    const lostSettlements = [...settledBefore].filter((id) => !settledAfter.has(id));
    // Holds are committed without waiting for the disk or the standby (docs/billing.md, "Crash
    // cases"): those taken in the last second before the crash may be lost, never overcharged.
    const mayBeUnbilled = new Set(
      run.filter((s) => s.requestId && s.end >= at - 1_000 && s.start <= at + failoverMs + 2_000).map((s) => s.requestId as string),
    );
    const wrong = await wronglyCharged(env.BILLING_DATABASE_URL, run, mayBeUnbilled);
    const reconcile = await operatorCli(env).billing('reconcile');
    const failed = run.filter((s) => s.end >= at && (s.status !== 200 || !s.complete));
    recordResult('PostgreSQL primary killed, standby promoted', {
      requests: run.length,
      failed: failed.length,
      failures: failed.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {}),
      failedStartedAfterFailover: failedAfter(run, at + failoverMs, 0).length,
      failureDetails: failed.map(describeFailure).slice(0, 6),
      lastFailureStartedMs: failed.length ? Math.round(Math.max(...failed.map((s) => s.start)) - at) : null,
      failoverCommandMs: failoverMs,
      promoteAndSwitchMs: promoteMs,
      writesResumedMs,
      probeWrites: probe.acknowledged.length,
      probeWritesFailed: probe.failures,
      lostAcknowledgedWrites: lostWrites.length,
      settledChargesBefore: settledBefore.size,
      lostSettledCharges: lostSettlements.length,
      wronglyCharged: wrong.length,
      reconcile: { ok: reconcile.ok, mismatches: reconcile.mismatches?.length, overdueHolds: reconcile.overdueHolds },
    });
    expect(writesResumedMs).not.toBeNull();
    expect(lostWrites).toEqual([]);
    expect(settledBefore.size).toBeGreaterThan(0);
    expect(lostSettlements).toEqual([]);
    expect(wrong).toEqual([]);
    expect(reconcile).toMatchObject({ ok: true, mismatches: [], overdueHolds: 0 });
    // A request that needs the database while none answers is a 503, never a 500.
    expect(failed.filter((s) => s.status !== 503 && s.status !== 504 && s.status !== 200).map(describeFailure)).toEqual([]);
  });
});
