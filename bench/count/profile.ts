// A CPU profile of one running platform process over a window of the bench's load, through the
// inspector (SIGUSR1 opens it on 127.0.0.1:9229; closed again afterwards), and a summary of where
// the time went: the functions with the most self time, and self time by package or source folder.
import { writeFileSync } from 'node:fs';
import { WebSocket } from 'undici';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function inspectorUrl(): Promise<string> {
  for (let i = 0; i < 50; i++) {
    try {
      const list = (await (await fetch('http://127.0.0.1:9229/json/list')).json()) as { webSocketDebuggerUrl: string }[];
      if (list[0]) return list[0].webSocketDebuggerUrl;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the inspector did not open on 127.0.0.1:9229');
}

/** Profiles `pid` while `load` runs; writes the .cpuprofile to `file` and returns the summary. */
export async function profileWhile(pid: number, file: string, load: () => Promise<void>, intervalUs = 200): Promise<string> {
  process.kill(pid, 'SIGUSR1');
  const ws = new WebSocket(await inspectorUrl());
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 1;
  const pending = new Map<number, (result: unknown) => void>();
  ws.onmessage = (ev) => {
    const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  };
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: intervalUs });
  await call('Profiler.start');
  await load();
  const { profile } = (await call('Profiler.stop')) as { profile: Profile };
  writeFileSync(file, JSON.stringify(profile));
  // Closing the inspector ends this session before it can answer: wait for the socket to close.
  const closed = new Promise((resolve) => (ws.onclose = resolve));
  void call('Runtime.evaluate', { expression: "require('inspector').close()", includeCommandLineAPI: true });
  await Promise.race([closed, sleep(2000)]);
  ws.close();
  for (
    let i = 0;
    i < 50 &&
    (await fetch('http://127.0.0.1:9229/json/list').then(
      () => true,
      () => false,
    ));
    i++
  )
    await sleep(100);
  return summarize(profile);
}

/** Where a function's code lives: a package in node_modules, the project's source folder, or Node's own. */
function owner(url: string): string {
  if (!url) return '(native, GC, idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url;
  const own = /\/(apps|libs)\/([^/]+)\/(?:src\/)?([^/]+)/.exec(url);
  return own ? `${own[1]}/${own[2]}/${own[3]}` : url;
}

export function summarize(profile: Profile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  let idle = 0;
  const fns = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/|^.*\/work\/[^/]+\//, '')}:${f.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    const o = ['(garbage collector)', '(program)'].includes(f.functionName) ? f.functionName : owner(f.url);
    owners.set(o, (owners.get(o) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  return [
    `busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`,
    'self time by owner:',
    ...top(owners, 30),
    'self time by function:',
    ...top(fns, 40),
  ].join('\n');
}
