import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) that the summary reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  /** Microseconds on the monotonic clock that `process.hrtime` reads too. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionCost {
  /** `function file:line`, the file shortened to its package (or its last two path parts). */
  name: string;
  msPerRequest: number;
  /** Share of the process's busy (non-idle) time in the window. */
  share: number;
}

export interface ProfileSummary {
  busyMsPerRequest: number;
  top: FunctionCost[];
}

/** A monotonic window in microseconds, comparable with profile sample times. */
export type WindowUs = [number, number];

export const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time by function of the samples inside `window` (so start-up and idle periods are left out),
 * per request of the run measured in it. Each sample counts for the time to the next one.
 */
export function summarizeProfile(profile: CpuProfile, window: WindowUs, requests: number, top = 12): ProfileSummary {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<string, number>();
  let busy = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < window[0] || t > window[1]) continue;
    const duration = profile.timeDeltas[i + 1] ?? 0;
    const frame = frames.get(profile.samples[i]);
    if (!frame || frame.functionName === '(idle)') continue;
    busy += duration;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim();
    self.set(name, (self.get(name) ?? 0) + duration);
  }
  const perRequest = (us: number) => us / 1000 / Math.max(1, requests);
  return {
    busyMsPerRequest: perRequest(busy),
    top: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, msPerRequest: perRequest(us), share: busy > 0 ? us / busy : 0 })),
  };
}

function shortUrl(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (pkg) return `${pkg[1]}/${pkg[2].split('/').pop()}`;
  return url.split('/').slice(-2).join('/');
}

/** `.cpuprofile` files in `dir` by the pid in their name (`CPU.<date>.<time>.<pid>.<tid>.<n>.cpuprofile`). */
export function profilesByPid(dir: string): Map<number, string> {
  const files = new Map<number, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return files;
  }
  for (const name of names) {
    const pid = /^CPU\.\d+\.\d+\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(name)?.[1];
    if (pid) files.set(Number(pid), path.join(dir, name));
  }
  return files;
}

export const readProfile = (file: string): CpuProfile => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

export function renderSummary(label: string, summary: ProfileSummary): string {
  const rows = summary.top.map((f) => `  ${f.msPerRequest.toFixed(3).padStart(7)} ms ${(100 * f.share).toFixed(1).padStart(5)}%  ${f.name}`);
  return [`${label}: busy ${summary.busyMsPerRequest.toFixed(3)} ms/request (profiler time: includes waiting for a core on a busy machine)`, ...rows].join(
    '\n',
  );
}
