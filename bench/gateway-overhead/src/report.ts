import { LoadResult } from './load';
import { ProfileSummary } from './profile-summary';
import { StreamResult } from './stream-ttfb';

/** What one side (the fake upstream directly, or the platform in front of it) measured. */
export interface SideResult {
  unloaded: LoadResult;
  loaded: LoadResult;
  stream: StreamResult;
  /** CPU ms per request of the loaded run, summed over the side's own processes. */
  cpuMsPerRequest?: number;
  /** Cores the side's own processes kept busy during the loaded run (below the core count: not CPU-bound). */
  cpuCoresBusy?: number;
  /** The same, per process (label -> ms per request). */
  cpuBreakdown?: Record<string, number>;
  /** CPU ms per request of the private nats-server the platform used (not a platform process). */
  natsCpuMsPerRequest?: number;
  /** CPU ms per request spent by this benchmark process itself (the load generator). */
  loadGeneratorCpuMsPerRequest: number;
  /** Monotonic microseconds (the clock of `--cpu-prof` samples) of the two load runs. */
  windowsUs?: { unloaded: [number, number]; loaded: [number, number] };
  /** Labels of the side's processes (pid -> gateway, chat, ...), for their profiles. */
  labels?: Record<number, string>;
  /** With --profile: each process's CPU profile over the two load runs. */
  profiles?: Record<string, { unloaded: ProfileSummary; loaded: ProfileSummary }>;
}

export interface TargetCheck {
  name: string;
  value: number;
  target: string;
  pass: boolean;
}

export const REFERENCE = 'a popular TypeScript AI gateway on this kind of machine: ~1.0 ms CPU/request, ~900 RPS at 32 connections, +30 ms streaming TTFB';

export function added(platform: number, direct: number): number {
  return platform - direct;
}

export function checkTargets(direct: SideResult, platform: SideResult): TargetCheck[] {
  const checks: TargetCheck[] = [
    check('unloaded added latency p50 (ms)', added(platform.unloaded.latencyMs.p50, direct.unloaded.latencyMs.p50), '< 1', (v) => v < 1),
    check(`RPS at ${platform.loaded.connections} connections`, platform.loaded.rps, '>= 2500', (v) => v >= 2500),
    check(`p99 latency at ${platform.loaded.connections} connections (ms)`, platform.loaded.latencyMs.p99, '< 20', (v) => v < 20),
    check('streaming first byte added p50 (ms)', added(platform.stream.firstByteMs.p50, direct.stream.firstByteMs.p50), '< 2', (v) => v < 2),
  ];
  if (platform.cpuMsPerRequest !== undefined) checks.push(check('CPU per request, platform processes (ms)', platform.cpuMsPerRequest, '< 0.5', (v) => v < 0.5));
  return checks;
}

function check(name: string, value: number, target: string, ok: (v: number) => boolean): TargetCheck {
  return { name, value, target, pass: Number.isFinite(value) && ok(value) };
}

const fmt = (v: number | undefined, digits = 2): string => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));
const fmtInt = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? 'n/a' : Math.round(v).toLocaleString('en-US'));
const signed = (v: number): string => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : 'n/a');

/** The human-readable table: direct, through the platform, added, target. */
export function renderTable(direct: SideResult, platform: SideResult | undefined): string {
  const rows: string[][] = [['', 'direct', 'platform', 'added', 'target']];
  const row = (label: string, d: string, p: string | undefined, a: string | undefined, target = ''): void => {
    rows.push([label, d, p ?? '-', a ?? '', target]);
  };
  const lat = (label: string, pick: (s: SideResult) => number, target = ''): void =>
    row(label, fmt(pick(direct)), platform && fmt(pick(platform)), platform && signed(added(pick(platform), pick(direct))), target);

  const c = direct.loaded.connections;
  row('1 conn: RPS', fmtInt(direct.unloaded.rps), platform && fmtInt(platform.unloaded.rps), undefined);
  lat('1 conn: p50 latency (ms)', (s) => s.unloaded.latencyMs.p50, 'added < 1');
  lat('1 conn: p99 latency (ms)', (s) => s.unloaded.latencyMs.p99);
  row(`${c} conn: RPS`, fmtInt(direct.loaded.rps), platform && fmtInt(platform.loaded.rps), undefined, '>= 2,500');
  lat(`${c} conn: p50 latency (ms)`, (s) => s.loaded.latencyMs.p50);
  lat(`${c} conn: p99 latency (ms)`, (s) => s.loaded.latencyMs.p99, 'p99 < 20');
  row(`${c} conn: CPU/request (ms)`, fmt(direct.cpuMsPerRequest, 3), platform && fmt(platform.cpuMsPerRequest, 3), undefined, '< 0.5');
  row(`${c} conn: CPU busy (cores)`, fmt(direct.cpuCoresBusy), platform && fmt(platform.cpuCoresBusy), undefined);
  if (platform?.natsCpuMsPerRequest !== undefined) row(`${c} conn: + nats-server CPU/req (ms)`, '', fmt(platform.natsCpuMsPerRequest, 3), undefined);
  row(
    `${c} conn: load generator CPU/req (ms)`,
    fmt(direct.loadGeneratorCpuMsPerRequest, 3),
    platform && fmt(platform.loadGeneratorCpuMsPerRequest, 3),
    undefined,
  );
  lat('stream: first byte p50 (ms)', (s) => s.stream.firstByteMs.p50, 'added < 2');
  lat('stream: first byte p99 (ms)', (s) => s.stream.firstByteMs.p99);
  lat('stream: first token p50 (ms)', (s) => s.stream.firstTokenMs.p50);
  lat('stream: complete p50 (ms)', (s) => s.stream.totalMs.p50);

  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
  lines.splice(1, 0, '-'.repeat(lines[0].length));
  if (platform?.cpuBreakdown) {
    const parts = Object.entries(platform.cpuBreakdown).map(([name, ms]) => `${name} ${ms.toFixed(3)}`);
    lines.push('', `platform CPU ms/request by process: ${parts.join(', ')}`);
  }
  return lines.join('\n');
}

export function renderChecks(checks: TargetCheck[]): string {
  return checks.map((c) => `${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${fmt(c.value)} (target ${c.target})`).join('\n');
}

export function failures(side: SideResult): string[] {
  const problems: string[] = [];
  for (const run of [side.unloaded, side.loaded]) {
    if (run.non2xx + run.errors + run.timeouts > 0) {
      problems.push(
        `${run.connections} conn: ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts of ${run.ok + run.non2xx + run.errors} requests`,
      );
    }
  }
  return problems;
}
