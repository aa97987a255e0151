import { RunningPlatform } from '@svc/testing';

/** Pids of the live processes of `service` that announced themselves ("<service> service ready"), newest last. */
export function servicePids(platform: RunningPlatform, service: string): number[] {
  const pids = platform
    .output()
    .split('\n')
    .filter((line) => line.includes(`"${service} service ready"`))
    .map((line) => (JSON.parse(line.slice(line.indexOf('{'))) as { pid: number }).pid);
  return [...new Set(pids)].filter(alive);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs the newest live process of `service`; returns its pid. */
export function killService(platform: RunningPlatform, service: string): number {
  const pid = servicePids(platform, service).at(-1);
  if (pid === undefined) throw new Error(`no live ${service} process`);
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** Resolves when `service` has `count` live processes again (start.js restarts a killed one). */
export async function waitForReplicas(platform: RunningPlatform, service: string, count: number, timeoutMs = 60_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    if (servicePids(platform, service).length >= count) return;
  }
  throw new Error(`${service} did not get back to ${count} processes within ${timeoutMs} ms`);
}
