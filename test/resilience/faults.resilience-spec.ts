import path from 'node:path';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT } from '@svc/config';
import {
  freePort,
  operatorCli,
  postgresServerAvailable,
  PrivatePostgres,
  PrivateRedis,
  RunningPlatform,
  startPlatform,
  startPrivatePostgres,
  startPrivateRedis,
} from '@svc/testing';
import { chatRequest } from './support/chat-request';
import { killService, waitForReplicas } from './support/service-processes';
import { startDelayProxy } from './support/delay-proxy';
import { checkCharges } from './support/charge-check';
import { recovery, Sample, startTraffic } from './support/traffic';

/**
 * Faults under load (issue 16, "fault tests"): the whole platform on a private NATS, Redis and
 * PostgreSQL, two replicas of chat, billing and keys (`SVC_REPLICAS`), chat traffic from four
 * clients (half streamed) and a probe every 200 ms. One fault at a time: SIGKILL of each service
 * mid-request and mid-stream (media mid-image, audio mid-job: the job is not lost), a crash and
 * restart of NATS, Redis and PostgreSQL, and a gateway
 * whose link to NATS is 25 ms slower each way. Each must cost at most the requests in flight at
 * the fault, and new requests must succeed again within the bounds of docs/operations.md
 * ("Faults and recovery"). At the end the ledger is reconciled and every request's net charge
 * checked against what its client got. Slow (about two minutes): RESILIENCE_QUICK=1 skips it.
 *
 * netem (tc) is not available in this kernel ("Specified qdisc kind is unknown"), so the delay
 * is a userspace TCP proxy between the extra gateway and NATS (support/delay-proxy.ts).
 */
const quick = process.env.RESILIENCE_QUICK === '1';
const describeSlow = quick || !postgresServerAvailable() ? describe.skip : describe;

const CONCURRENCY = 4;
/** A failed in-flight request ends within STREAM_IDLE_TIMEOUT_MS (3 s), plus a loaded CI machine's slack. */
const FAILURE_BOUND_MS = 6_000;
/** With a second replica, new requests succeed again within this of the fault; after NATS is back, within 2 s (the bound). */
const RECOVERY_BOUND_MS = 2_000;

describeSlow('faults under load', () => {
  let platform: RunningPlatform;
  let redis: PrivateRedis;
  let pg: PrivatePostgres;
  const samples: Sample[] = [];
  /**
   * Requests that may go unbilled, never overcharged (docs/billing.md, "Crash cases"): those in
   * flight around the PostgreSQL crash (billing commits holds without waiting for the disk, so a
   * crash may lose a hold). Not those a chat replica answered just before its SIGKILL: their
   * settlements are in its journal, and the restarted replica sends them.
   */
  const mayBeUnbilled = new Set<string>();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    [redis, pg] = await Promise.all([startPrivateRedis(), startPrivatePostgres()]);
    platform = await startPlatform({
      pgUrl: pg.url,
      timeoutMs: 150_000,
      env: {
        REDIS_URL: redis.url,
        SVC_REPLICAS: 'chat=2,billing=2,keys=2',
        RATE_LIMITS_ENABLED: 'false',
        LOG_LEVEL: 'info', // "<service> service ready" lines name each replica's pid
        BILLING_SETTLE_GRACE_MS: '1000',
        BILLING_SWEEP_INTERVAL_MS: '250',
        // A job whose worker died is taken up again within seconds (defaults: 30 s lock, 15 s check).
        AUDIO_JOB_LOCK_MS: '2000',
        AUDIO_JOB_STALLED_INTERVAL_MS: '1000',
      },
    });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await Promise.all([redis?.stop(), pg?.stop()]);
  });

  /** Traffic against `apiUrl` for `before` ms, then `fault()`, then `after` ms; returns the samples and the fault's and recovery's times. */
  async function underLoad(fault: () => Promise<number | void>, apiUrl = platform.apiUrl, after = 6_000) {
    const traffic = startTraffic({
      concurrency: CONCURRENCY,
      probeEveryMs: 200,
      clientTimeoutMs: 20_000,
      request: (signal, worker) => chatRequest(apiUrl, platform.adminKey, worker % 2 !== 0)(signal),
    });
    await sleep(1_500);
    const at = traffic.now();
    const backAfter = await fault();
    const back = at + (backAfter ?? 0);
    await sleep(after);
    const run = await traffic.stop();
    samples.push(...run);
    return { run, at, back, result: recovery(run, at, back) };
  }

  /** A fault is a 503 (or 504, or a stream's error event), never a 500: the others, with what they said. */
  function expectUnavailableOnly(run: Sample[]) {
    const wrong = run.filter((s) => s.status !== 200 && s.status !== 503 && s.status !== 504).map((s) => `${s.status} ${s.detail ?? ''}`);
    expect(wrong).toEqual([]);
  }

  /** At most one failure per request in flight at the fault (the probe's included), each ended within the bound. */
  function expectContained(r: ReturnType<typeof recovery>, run: Sample[]) {
    expect(r.failed).toBeLessThanOrEqual(CONCURRENCY + Math.ceil(FAILURE_BOUND_MS / 200));
    expect(r.slowestFailureMs).toBeLessThanOrEqual(FAILURE_BOUND_MS);
    expect(r.recoveredMs).not.toBeNull();
    expect(r.recoveredMs!).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expect(r.succeeded).toBeGreaterThan(10);
    expectUnavailableOnly(run);
  }

  it.each(['chat', 'billing', 'keys'])('SIGKILL of a %s replica mid-request and mid-stream fails only what it held', async (service) => {
    await waitForReplicas(platform, service, 2);
    const { run, at, result } = await underLoad(async () => void killService(platform, service));
    expectContained(result, run);
    // Only requests already sent when the replica died may fail: the survivor takes every new one.
    const late = run.filter((s) => s.start > at + 100 && (s.status !== 200 || !s.complete));
    expect(late).toEqual([]);
    await waitForReplicas(platform, service, 2);
  });

  it.each([
    {
      part: 'NATS',
      what: 'new requests succeed within 2 s of it being back',
      downMs: 2_000,
      afterMs: 6_000,
      crash: () => platform.nats.kill(),
      start: () => platform.nats.start(),
    },
    { part: 'Redis', what: 'chat keeps being served', downMs: 1_000, afterMs: 6_000, crash: () => redis.stop(), start: () => redis.start() },
    {
      part: 'PostgreSQL',
      what: 'requests succeed again within 2 s of it being back',
      downMs: 1_000,
      afterMs: 8_000,
      crash: () => pg.kill(),
      start: () => pg.start(),
      losesHolds: true,
    },
  ])('$part crashed and back $downMs ms later: $what', async ({ downMs, afterMs, crash, start, losesHolds }) => {
    const { run, result, at, back } = await underLoad(
      async () => {
        // Recovery counts from the moment it is back (accepting connections again), as the bound
        // says, not from when its restart began: a crashed PostgreSQL replays its WAL first.
        const began = performance.now();
        await crash();
        await sleep(downMs);
        await start();
        return performance.now() - began;
      },
      undefined,
      afterMs,
    );
    expect(result.recoveredMs).not.toBeNull();
    expect(result.recoveredMs!).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expect(result.slowestFailureMs).toBeLessThanOrEqual(FAILURE_BOUND_MS);
    expectUnavailableOnly(run);
    // "The last few hundred milliseconds" of holds before the crash, and those taken while it was down.
    if (losesHolds) for (const s of run) if (s.requestId && s.end >= at - 1_000 && s.start <= back) mayBeUnbilled.add(s.requestId);
  });

  it('a gateway 25 ms away from NATS (each way) serves, streams and bills exactly', async () => {
    const proxy = await startDelayProxy(new URL(platform.env.NATS_URL).port, 25);
    const port = await freePort();
    const gateway = spawn(process.execPath, ['-r', path.join(REPO_ROOT, 'tools/register-paths.js'), path.join(REPO_ROOT, 'dist/apps/gateway/src/main.js')], {
      cwd: REPO_ROOT,
      env: { ...platform.env, PORT: String(port), NATS_URL: proxy.url },
      stdio: 'ignore',
    });
    try {
      await waitForHealthy(`http://127.0.0.1:${port}/healthz`);
      const { run } = await underLoad(async () => undefined, `http://127.0.0.1:${port}/api/v1`, 3_000);
      const failures = run.filter((s) => s.status !== 200 || !s.complete);
      expect(failures).toEqual([]);
      // A call to the chat service and its answer cross the proxy: at least 50 ms per request.
      const fastest = Math.min(...run.map((s) => s.end - s.start));
      expect(fastest).toBeGreaterThanOrEqual(50);
    } finally {
      await new Promise<void>((resolve) => {
        gateway.once('exit', () => resolve());
        gateway.kill('SIGTERM');
      });
      await proxy.close();
    }
  });

  /** One JSON request with the bootstrap key, as a sample for the ledger check. */
  async function post(route: string, body: unknown): Promise<{ res: Response; sample: Sample }> {
    const start = performance.now();
    const res = await fetch(`${platform.apiUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { res, sample: { start, end: performance.now(), status: res.status, complete: res.status === 200, requestId: res.headers.get('cf-ray') } };
  }

  it('SIGKILL of the media service mid-image: that request is a prompt 503, the restarted one serves', async () => {
    const image = { model: 'default', prompt: 'a red square on a green background', width: 1024, height: 1024, format: 'png', return_binary: true };
    const pending = post('/image/generate', image);
    await sleep(150);
    killService(platform, 'media');
    const { res, sample } = await pending;
    samples.push(sample);
    expect(res.status).toBe(503);
    expect(sample.end - sample.start).toBeLessThanOrEqual(FAILURE_BOUND_MS);
    await waitForReplicas(platform, 'media', 1);
    const again = await post('/image/generate', image);
    samples.push(again.sample);
    expect(again.res.status).toBe(200);
    expect(
      Buffer.from(await again.res.arrayBuffer())
        .subarray(1, 4)
        .toString('ascii'),
    ).toBe('PNG');
  });

  it('SIGKILL of the audio service mid-job: the queued job is not lost, it completes after the restart and is charged once', async () => {
    const text = 'The lighthouse keeper wrote down every ship that passed. '.repeat(30);
    const queued = await post('/audio/queue', { model: 'svc-flite', prompt: text, response_format: 'mp3' });
    expect(queued.res.status).toBe(200);
    const { queue_id: queueId } = (await queued.res.json()) as { queue_id: string };
    await sleep(200);
    killService(platform, 'audio');
    let res: Response | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
      res = (await post('/audio/retrieve', { model: 'svc-flite', queue_id: queueId })).res;
      if (res.status === 200 && res.headers.get('content-type') === 'audio/mpeg') break;
      await res.arrayBuffer();
    }
    expect(res?.headers.get('content-type')).toBe('audio/mpeg');
    expect((await res!.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    samples.push({ ...queued.sample, end: performance.now() });
    expect((await (await post('/audio/complete', { model: 'svc-flite', queue_id: queueId })).res.json()) as unknown).toEqual({ success: true });
  });

  it('after all of it: the ledger reconciles and each request was charged what its client got', async () => {
    const answered = samples.filter((s) => s.requestId);
    // Settlements delayed by the faults are retried with backoff (up to about a minute).
    const { wrong, charges } = await checkCharges(platform.env.BILLING_DATABASE_URL, samples, mayBeUnbilled);
    const reconcile = await operatorCli(platform.env).billing('reconcile');
    expect(reconcile).toMatchObject({ ok: true, mismatches: [], overdueHolds: 0 });

    expect(answered.length).toBeGreaterThan(100);
    if (wrong.length) {
      const ids = wrong.map((w) => w.slice(0, w.indexOf(':')));
      process.stdout.write(
        platform
          .output()
          .split('\n')
          .filter((l) => ids.some((id) => l.includes(id)) || l.includes('settle'))
          .slice(0, 40)
          .join('\n'),
      );
    }
    expect(wrong).toEqual([]);
    // A lost hold is the rare exception, never the rule: at most the requests in flight at the crash.
    const unbilled = answered.filter((s) => s.status === 200 && !charges.has(s.requestId as string));
    expect(unbilled.length).toBeLessThanOrEqual(CONCURRENCY + 5);
  });
});

async function waitForHealthy(url: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const ok = await fetch(url)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return;
  }
  throw new Error(`${url} did not become healthy`);
}
