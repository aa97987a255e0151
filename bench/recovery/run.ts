// Recovery after faults (issue 16, part 6): the whole platform as `npm start` runs it (built dist/),
// closed-loop chat traffic (half streamed) plus a probe every 100 ms (streamed), then one fault at a time: SIGKILL of a service, a
// NATS crash and restart 2 s later. Prints, per fault, the failed requests (and how many of them
// were in flight at the fault), the time until the first request sent after the fault (or after
// NATS was back) succeeded, and the longest wait of a failed request.
//   npm run bench:recovery -- [--replicas 2] [--concurrency 4] [--only chat,billing,keys,nats] [--verbose]
import { startPlatform } from '@svc/testing';
import { recovery, Sample, startTraffic } from '../../test/resilience/support/traffic';
import { chatRequest } from '../../test/resilience/support/chat-request';
import { killService, waitForReplicas } from '../../test/resilience/support/service-processes';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const REPLICAS = arg('replicas', 1);
const CONCURRENCY = arg('concurrency', 4);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : ['chat', 'billing', 'keys', 'nats'];
const verbose = args.includes('--verbose');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const platform = await startPlatform({
    env: { RATE_LIMITS_ENABLED: 'false', LOG_LEVEL: 'info', SVC_REPLICAS: String(REPLICAS) },
    timeoutMs: 180_000,
  });
  const rows: string[] = [];
  try {
    const traffic = () =>
      startTraffic({
        concurrency: CONCURRENCY,
        probeEveryMs: 100,
        request: (signal, worker) => chatRequest(platform.apiUrl, platform.adminKey, worker % 2 !== 0)(signal),
      });
    const row = (name: string, samples: Sample[], at: number, back = at) => {
      const r = recovery(samples, at, back);
      if (verbose)
        for (const s of samples.filter((x) => x.end >= at && !x.complete).slice(0, 6))
          process.stdout.write(`${name}: ${Math.round(s.start - at)} ms +${Math.round(s.end - s.start)} ${s.status} ${s.detail}\n`);
      rows.push(
        `| ${name} | ${r.failed} | ${r.failedInFlight} | ${r.recoveredMs ?? 'never'} | ${r.slowestFailureMs} | ${r.succeeded} | ${JSON.stringify(r.failures)} |`,
      );
    };

    for (const service of ['chat', 'billing', 'keys'].filter((s) => only.includes(s))) {
      await waitForReplicas(platform, service, REPLICAS);
      const t = traffic();
      await sleep(2_000);
      const at = t.now();
      killService(platform, service);
      await sleep(10_000);
      row(`SIGKILL ${service}`, await t.stop(), at);
      await waitForReplicas(platform, service, REPLICAS);
      await sleep(1_000);
    }

    if (!only.includes('nats')) return;
    const t = traffic();
    await sleep(2_000);
    const at = t.now();
    await platform.nats.kill();
    await sleep(2_000);
    await platform.nats.start();
    const back = t.now();
    await sleep(10_000);
    row('NATS killed, back 2 s later (from back)', await t.stop(), at, back);
  } finally {
    await platform.stop();
    print(rows);
  }
}

function print(rows: string[]): void {
  process.stdout.write(
    [
      `replicas per service: ${REPLICAS}; ${CONCURRENCY} clients in a closed loop (half streamed) and a streamed probe every 100 ms, svc-tiny-random, max_tokens 6`,
      '',
      '| fault | failed | of them in flight | recovered in (ms) | slowest failure (ms) | succeeded after | failures by status |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
