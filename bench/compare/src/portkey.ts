import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { freePort, sleep, stopChild } from './gateway-overhead';

export interface RunningPortkey {
  /** Base URL; chat completions are at `${url}/v1/chat/completions`. */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The server script the package's `start:node` script runs (its `bin`). */
export function portkeyServerScript(root: string): string {
  return path.join(root, 'node_modules/@portkey-ai/gateway/build/start-server.js');
}

/**
 * Portkey's OSS gateway as its `start:node` script (and `npx @portkey-ai/gateway`) starts it, in a
 * child process on a free port; `--headless` leaves out its log-viewer UI. Resolves once `GET /` answers.
 */
export async function startPortkey(root: string, logFile: string, timeoutMs = 30_000): Promise<RunningPortkey> {
  const script = portkeyServerScript(root);
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`npm ci\` (@portkey-ai/gateway is a devDependency)`);
  const port = await freePort();
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [script, `--port=${port}`, '--headless'], { cwd: root, stdio: ['ignore', log, log] });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Portkey exited with ${child.exitCode}; see ${logFile}`);
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1_000) });
      return { url, pid: child.pid as number, stop };
    } catch {
      await sleep(100);
    }
  }
  await stop();
  throw new Error(`Portkey did not answer within ${timeoutMs} ms; see ${logFile}`);
}

/** Portkey routes by headers: its OpenAI provider, pointed at the fake upstream's OpenAI base URL. */
export function portkeyRouteHeaders(upstreamBaseUrl: string): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamBaseUrl };
}

const versionSchema = z.object({ version: z.string() });

/** "@portkey-ai/gateway 1.15.2 (hono 4.9.7, @hono/node-server 1.13.5)": what was installed, overrides included. */
export function portkeyVersions(root: string): string {
  const version = (name: string): string => {
    try {
      return versionSchema.parse(JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8'))).version;
    } catch {
      return 'missing';
    }
  };
  return `@portkey-ai/gateway ${version('@portkey-ai/gateway')} (hono ${version('hono')}, @hono/node-server ${version('@hono/node-server')})`;
}
