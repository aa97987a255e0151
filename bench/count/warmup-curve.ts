// How the platform's cost per request moves from start to steady state at one connection:
// CPU per request of each process, and of the whole machine, per window of requests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { chatTarget } from '../compare/src/chat-request';
import { processLabel, processTree, readAllStats } from '../compare/src/gateway-overhead';
import { counters } from './counters';
import { runMain, startWithHotAccount } from './harness';

const here = path.resolve(__dirname, '../..');
const WINDOW = Number(process.env.WINDOW ?? 1000);
const WINDOWS = Number(process.env.WINDOWS ?? 15);
const SYSTEM = process.env.SYSTEM === 'portkey' ? 'portkey' : 'platform';
const cleanups: (() => Promise<void>)[] = [];
const say = (m: string) => process.stderr.write(`[warmup-curve] ${m}\n`);
const machineMs = () =>
  readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .split(/\s+/)
    .slice(1, 8)
    .reduce((a, v, i) => a + (i === 3 ? 0 : Number(v) * 10), 0);

async function main(): Promise<void> {
  const { systems, account } = await startWithHotAccount(here, path.join(here, 'tmp/bench-count'), cleanups, say);
  const target = chatTarget(SYSTEM, { stream: false, accounts: 1 }, systems.endpoints, [account.apiKey]);
  const agent = new Agent({ connections: 1 });
  const tree = processTree(readAllStats(), systems.cpu.platformRoot).map((s) => ({ pid: s.pid, label: processLabel(s.pid, s.comm) }));
  const processes =
    SYSTEM === 'portkey'
      ? [{ pid: systems.cpu.portkey!, label: 'portkey' }]
      : [...tree.filter((p) => ['gateway', 'chat', 'billing'].includes(p.label)), { pid: systems.cpu.nats!, label: 'nats' }];
  process.stdout.write(`window | ms/req | ${processes.map((p) => p.label).join(' | ')} | machine\n`);
  for (let w = 0; w < WINDOWS; w++) {
    const before = processes.map((p) => counters(p.pid).cpuMs);
    const m0 = machineMs();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < WINDOW; i++) {
      const res = await request(target.url, { method: 'POST', headers: target.headers, body: target.body, dispatcher: agent });
      await res.body.text();
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6 / WINDOW;
    const after = processes.map((p) => counters(p.pid).cpuMs);
    const cells = processes.map((_, i) => ((after[i] - before[i]) / WINDOW).toFixed(3));
    process.stdout.write(`${w} | ${ms.toFixed(3)} | ${cells.join(' | ')} | ${((machineMs() - m0) / WINDOW).toFixed(3)}\n`);
  }
}

runMain(main, cleanups);
