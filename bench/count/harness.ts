// What bench:count and bench:floor share: the systems of bench/compare with one hot account, and
// a main that stops every started process however it ends.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '@svc/errors';
import { BenchAccount, benchAccounts } from '../compare/src/accounts';
import { RunningSystems, startSystems } from '../compare/src/systems';

export interface HotSystems {
  systems: RunningSystems;
  account: BenchAccount;
}

/** The fake upstream, the platform (built in `root`) and Portkey, with one account made by the operator CLIs (or reused). */
export async function startWithHotAccount(root: string, logDir: string, cleanups: (() => Promise<void>)[], say: (m: string) => void): Promise<HotSystems> {
  mkdirSync(logDir, { recursive: true });
  const systems = await startSystems({ root, logDir, tokens: 8, startTimeoutSeconds: 600, cleanups, say });
  const [account] = await benchAccounts({
    root,
    env: systems.cliEnv,
    count: 1,
    file: path.join(logDir, 'accounts.json'),
    reseed: false,
    works: async () => true,
    say,
  });
  return { systems, account };
}

/** Runs `main`, then the cleanups in reverse, and exits 0, or 1 with the error. */
export function runMain(main: () => Promise<void>, cleanups: (() => Promise<void>)[]): void {
  const stopAll = async () => {
    for (const stop of cleanups.reverse()) await stop().catch(() => undefined);
  };
  main().then(
    async () => {
      await stopAll();
      process.exit(0);
    },
    async (err) => {
      process.stderr.write(`${err instanceof Error && err.stack ? err.stack : errorMessage(err)}\n`);
      await stopAll();
      process.exit(1);
    },
  );
}
