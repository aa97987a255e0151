import { parseArgs } from 'node:util';
import { FAILURE_MODES, FailureMode, FakeOpenAiUpstream } from '@svc/testing';
import { errorMessage } from '@svc/errors';

const USAGE = `Usage: node -r ./tools/register-paths.js dist/bench/fake-upstream/src/main.js [options]
  --port <n>                 port to listen on (default 18080; 0 picks a free one)
  --host <addr>              address to bind (default 127.0.0.1)
  --tokens <n>               completion tokens per answer (default 8)
  --first-token-delay-ms <n> delay before the first token (default 0)
  --token-delay-ms <n>       delay between tokens (default 0)
  --failure <mode>           ${FAILURE_MODES.join(' | ')} (default none)
  --record <n>               requests to keep in memory (default 0)
Prints "fake upstream listening on <url>" once ready; SIGINT/SIGTERM stop it.`;

function int(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      tokens: { type: 'string' },
      'first-token-delay-ms': { type: 'string' },
      'token-delay-ms': { type: 'string' },
      failure: { type: 'string' },
      record: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const failure = (values.failure ?? 'none') as FailureMode;
  if (!FAILURE_MODES.includes(failure)) throw new Error(`--failure must be one of ${FAILURE_MODES.join(', ')}`);
  const upstream = new FakeOpenAiUpstream({
    port: int('port', values.port, 18080),
    host: values.host ?? '127.0.0.1',
    completionTokens: int('tokens', values.tokens, 8),
    firstTokenDelayMs: int('first-token-delay-ms', values['first-token-delay-ms'], 0),
    tokenDelayMs: int('token-delay-ms', values['token-delay-ms'], 0),
    failure,
    recordLimit: int('record', values.record, 0),
  });
  const running = await upstream.start();
  process.stdout.write(`fake upstream listening on ${running.url} (OpenAI base URL ${running.baseUrl})\n`);
  const stop = (): void => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`fake-upstream: ${errorMessage(err)}\n${USAGE}\n`);
  process.exit(2);
});
