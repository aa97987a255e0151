import { errorMessage } from '@svc/errors';
/**
 * A benchmark's `main`: runs it, then the registered cleanups (newest first) whether it succeeded,
 * failed or was interrupted (SIGINT/SIGTERM), so no platform, upstream or server outlives it.
 */
export function runBench(label: string, main: () => Promise<void>, cleanups: Array<() => Promise<void>>): void {
  const cleanup = async () => {
    for (const stop of cleanups.reverse()) await stop().catch(() => undefined);
    cleanups.length = 0;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`[${label}] ${signal}: stopping\n`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  void main()
    .catch((err: unknown) => {
      process.stderr.write(`[${label}] ${errorMessage(err)}\n`);
      process.exitCode = 1;
    })
    .finally(() => cleanup());
}
