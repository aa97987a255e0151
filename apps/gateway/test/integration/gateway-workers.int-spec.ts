import { existsSync, readFileSync } from 'node:fs';
import { Gateway, RateLimitStack, startRateLimitStack } from './support/rate-limit-stack';

/**
 * GATEWAY_WORKERS=2: one port, two gateway processes under a primary (node:cluster), with the
 * rate-limit stack's real keys and chat services, NATS and Redis. Limits stay exact across the
 * workers (each is a replica), /metrics sums both, and a worker that dies is replaced.
 */
let stack: RateLimitStack;
let gateway: Gateway;

beforeAll(async () => {
  stack = await startRateLimitStack();
  gateway = await stack.startGateway('gateway-workers', { GATEWAY_WORKERS: '2' });
  await gateway.process.waitFor('gateway workers listening: 2', 60_000);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const childrenOf = (pid: number): number[] => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
/** User + system CPU time of a process, in clock ticks. */
const cpuTicks = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function chat(key: string): Promise<number> {
  const res = await fetch(`${gateway.api}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, connection: 'close' },
    body: JSON.stringify({ model: 'rl-text', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 }),
  });
  await res.text();
  return res.status;
}

const statuses = (all: number[]) => all.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

async function chatRequestsCounted(): Promise<number> {
  const res = await fetch(gateway.api.replace(/\/api\/v1$/, '/metrics'));
  expect(res.status).toBe(200);
  const text = await res.text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('svc_gateway_requests_total{') && l.includes('route="/api/v1/chat/completions"') && l.includes('status="200"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('gateway workers (GATEWAY_WORKERS=2)', () => {
  it('serves one port from two processes, and /metrics counts every request of both', async () => {
    const workers = childrenOf(gateway.process.pid);
    expect(workers).toHaveLength(2);
    const caller = await stack.newCaller();
    await stack.setAccountLimits(caller.accountId, { target: 'model:rl-text', rpm: 1_000 });
    const before = workers.map(cpuTicks);
    const counted = await chatRequestsCounted();
    // Each request on a connection of its own: the primary hands connections to the workers in turn.
    const answers = await Promise.all(Array.from({ length: 40 }, () => chat(caller.inference.secret)));
    expect(statuses(answers)).toEqual({ 200: 40 });
    const after = workers.map(cpuTicks);
    for (let i = 0; i < workers.length; i++) expect(after[i]).toBeGreaterThan(before[i]);
    expect((await chatRequestsCounted()) - counted).toBe(40);
  }, 60_000);

  it('holds a limit exactly across the workers', async () => {
    const caller = await stack.newCaller();
    await stack.setKeyLimits(caller.inference.id, { target: '*', rpm: 7 });
    const answers = await Promise.all(Array.from({ length: 35 }, () => chat(caller.inference.secret)));
    expect(statuses(answers)).toEqual({ 200: 7, 429: 28 });
  }, 60_000);

  it('replaces a worker that dies, and keeps serving', async () => {
    const [victim, survivor] = childrenOf(gateway.process.pid);
    process.kill(victim, 'SIGKILL');
    const caller = await stack.newCaller();
    await stack.setAccountLimits(caller.accountId, { target: 'model:rl-text', rpm: 1_000 });
    expect(statuses(await Promise.all(Array.from({ length: 10 }, () => chat(caller.inference.secret))))).toEqual({ 200: 10 });
    await gateway.process.waitFor('gateway worker died; starting another', 10_000);
    let now: number[] = [];
    for (let i = 0; i < 150; i++) {
      now = childrenOf(gateway.process.pid);
      if (now.length === 2 && !now.includes(victim)) break;
      await sleep(200);
    }
    expect(now).toHaveLength(2);
    expect(now).toContain(survivor);
    expect(now).not.toContain(victim);
    await gateway.process.waitFor('"worker":3', 150_000); // the new worker listens (it boots from the TypeScript sources)
    expect(statuses(await Promise.all(Array.from({ length: 10 }, () => chat(caller.inference.secret))))).toEqual({ 200: 10 });
  }, 240_000);

  it('stops both workers on SIGTERM to the primary, and then itself', async () => {
    const workers = childrenOf(gateway.process.pid);
    await gateway.process.stop();
    await gateway.process.waitFor('gateway workers stopped', 1);
    for (const pid of workers) expect(existsSync(`/proc/${pid}`)).toBe(false);
  }, 30_000);
});
