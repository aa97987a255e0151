import fc from 'fast-check';
import { Case, problemOf } from './support/answer-checks';
import { CATEGORIES, everyFieldHuge } from './support/cases';
import { shortWav, smallPng } from './support/fixtures';
import { formBody, formContentType } from './support/multipart';
import { ResiliencePlatform, startResiliencePlatform } from './support/platform';
import { RawAnswer, rawRequest, sendRaw } from './support/raw-http';
import { declaredRoutes, gatewayRoutes, Route, routeKey, urlOf } from './support/routes';
import { findingsSuite } from './findings';
import { slowClientsSuite } from './slow-clients';

/** Past this, an answer counts as a hang. */
const HANG_BOUND_MS = 5_000;
/** RESILIENCE_QUICK=1: a fifth of the fuzz cases and none of the slow tests (for a quick local loop). */
const QUICK = process.env.RESILIENCE_QUICK === '1';
/** RESILIENCE_SEED=<n> replays a run; every failure message names the seed. */
const SEED = Number(process.env.RESILIENCE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONCURRENCY = 4;

describe(`the gateway under bad input (seed ${SEED}${QUICK ? ', quick' : ''})`, () => {
  let platform: ResiliencePlatform;
  let routes: Route[];

  beforeAll(async () => {
    const [png, platformStarted] = await Promise.all([smallPng(), startResiliencePlatform()]);
    platform = platformStarted;
    routes = gatewayRoutes({ png, wav: shortWav() });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const send = (request: Buffer, deadlineMs = HANG_BOUND_MS): Promise<RawAnswer> => sendRaw(platform.target, request, { deadlineMs });

  /** Sends every case (a few at a time) and returns what went wrong, one line per case. RESILIENCE_REPORT=1 prints the statuses seen. */
  async function failuresOf(cases: Case[]): Promise<string[]> {
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++];
        const answer = await send(c.request);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        const problem = problemOf(answer, c);
        if (problem) failures.push(`${c.name}: ${problem}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (process.env.RESILIENCE_REPORT === '1')
      process.stdout.write(`${expect.getState().currentTestName}: ${cases.length} cases, statuses ${JSON.stringify(statuses)}\n`);
    return failures;
  }

  it('fuzzes every route the controllers declare', () => {
    expect(routes.map(routeKey).sort()).toEqual(declaredRoutes());
  });

  it('takes each well-formed request up to where it should stop (402 for a key without credit)', async () => {
    const statuses: Record<string, number> = {};
    for (const route of routes) {
      const body = route.json ? JSON.stringify(route.json) : undefined;
      const headers = { authorization: `Bearer ${platform.key}`, ...(body ? { 'content-type': 'application/json' } : {}) };
      const request = route.form
        ? rawRequest(route.method, urlOf(route), { ...headers, 'content-type': formContentType() }, formBody(route.form))
        : rawRequest(route.method, urlOf(route), headers, body);
      statuses[routeKey(route)] = (await send(request, 30_000)).status;
    }
    expect(statuses).toEqual(Object.fromEntries(routes.map((r) => [routeKey(r), r.baseline])));
  });

  describe('fuzz: 0 answers >= 500, 0 hangs past 5 s, every 4xx in the one error shape', () => {
    it.each(CATEGORIES.map((c) => ({ ...c, runs: QUICK ? Math.ceil(c.runs / 5) : c.runs })))('$name ($runs per route)', async ({ factory, runs }) => {
      const cases = routes.flatMap((route, i) => {
        const arbitrary = factory(route, platform.key);
        return arbitrary ? fc.sample(arbitrary, { numRuns: runs, seed: SEED + i }) : [];
      });
      const failures = await failuresOf(cases);
      expect({ seed: SEED, failures: failures.slice(0, 20), failed: failures.length, of: cases.length }).toEqual({
        seed: SEED,
        failures: [],
        failed: 0,
        of: cases.length,
      });
    });
  });

  it('answers every field of every body at just over a NATS message (1.1 MB) without a 5xx or a hang', async () => {
    const cases = routes.flatMap((route) => everyFieldHuge(route, platform.key));
    expect({ failures: await failuresOf(cases), of: cases.length }).toEqual({ failures: [], of: cases.length });
  });

  findingsSuite(() => ({ platform, send, failuresOf }));
  slowClientsSuite(() => ({ platform, send }), { quick: QUICK });
});
