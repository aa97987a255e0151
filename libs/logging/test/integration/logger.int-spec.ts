import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
const REGISTER_TS = path.join(ROOT, 'apps/gateway/test/integration/support/register-ts.js');

/** Runs log-process.ts; its stdout lines' messages and how it ended. */
function run(mode: string): Promise<{ messages: string[]; code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER_TS, path.join(__dirname, 'log-process.ts'), mode], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        messages: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).msg),
        code,
        signal,
      }),
    );
  });
}

/** Info lines wait in memory (libs/logging BufferedDestination); none may be lost when the process ends. */
describe('createLogger in a process that ends', () => {
  it('writes waiting lines at exit', async () => {
    expect(await run('exit')).toEqual({ messages: ['before'], code: 0, signal: null });
  });

  it('writes waiting lines at SIGTERM, and the signal still ends the process when nothing else handles it', async () => {
    expect(await run('signal')).toEqual({ messages: ['before'], code: null, signal: 'SIGTERM' });
  });

  it('writes lines logged during a handled shutdown that ends by raising the signal again', async () => {
    expect(await run('handled-signal')).toEqual({ messages: ['before', 'during shutdown'], code: null, signal: 'SIGTERM' });
  });
});
