import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { errorMessage } from '@svc/errors';

const run = promisify(execFile);

/**
 * One command of an operator CLI, as `npm run svc -- ...` (keys) or `npm run billing -- ...`
 * (billing) runs it, from the compiled dist/; its JSON output parsed with `schema`.
 */
export async function operatorCli<T>(root: string, env: NodeJS.ProcessEnv, cli: 'keys' | 'billing', args: string[], schema: z.ZodType<T>): Promise<T> {
  const entry = path.join(root, `dist/apps/${cli}/src/cli/main.js`);
  try {
    const { stdout } = await run(process.execPath, ['-r', path.join(root, 'tools/register-paths.js'), entry, ...args], { cwd: root, env });
    return schema.parse(JSON.parse(stdout));
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`${cli} CLI ${args.slice(0, 2).join(' ')} failed: ${stderr || errorMessage(err)}`);
  }
}
