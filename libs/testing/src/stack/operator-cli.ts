import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@svc/config';

const run = promisify(execFile);

/**
 * The operator CLIs as `npm run svc --` (keys: accounts, keys, limits) and `npm run billing --`
 * run them (built, from dist/), against a running platform's databases and NATS (its `env`).
 * Each prints JSON, returned parsed.
 */
export function operatorCli(env: Record<string, string>) {
  const cli =
    (app: 'keys' | 'billing') =>
    // The CLIs' JSON, for tests to assert on field by field; its static type adds nothing there.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async (...args: string[]): Promise<any> => {
      const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, `dist/apps/${app}/src/cli/main.js`), ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...env },
      });
      return JSON.parse(stdout);
    };
  return { svc: cli('keys'), billing: cli('billing') };
}
