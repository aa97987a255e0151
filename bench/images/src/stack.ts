import path from 'node:path';
import { REPO_ROOT } from '@svc/config';
import { BenchProcess, startBenchProcess } from '@svc/testing';

export const LOG_DIR = path.join(REPO_ROOT, 'tmp/bench-images');

/** A platform process from its TypeScript sources, logging at `warn` unless `env` says otherwise; resolves when its output contains `ready`. Output goes to tmp/bench-images/<name>.log. */
export function startFromSources(name: string, entry: string, env: Record<string, string>, ready: string, timeoutMs = 180_000): Promise<BenchProcess> {
  return startBenchProcess(name, entry, { LOG_LEVEL: 'warn', ...env }, ready, { logDir: LOG_DIR, timeoutMs });
}
