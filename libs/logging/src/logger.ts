import pino, { Logger } from 'pino';
import { BufferedDestination } from './buffered-destination';

/** How long an info line may wait before it is written (warnings and errors never wait). */
const FLUSH_MS = 100;
const MAX_BUFFERED = 4096;

let stdout: BufferedDestination | undefined;

/**
 * The process's one stdout destination, shared by its loggers so lines keep their order. Pending
 * lines are written at exit, and at SIGINT/SIGTERM, after which lines are no longer batched:
 * Nest's shutdown hooks end a service by raising the signal again, which runs no exit handlers.
 */
function processStdout(): BufferedDestination {
  if (stdout) return stdout;
  const dest = new BufferedDestination(pino.destination({ dest: 1, sync: true }), { flushMs: FLUSH_MS, maxBuffered: MAX_BUFFERED });
  process.on('exit', () => dest.flush());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.prependOnceListener(signal, () => {
      dest.unbuffered();
      // Nobody else handles the signal: its default action (the process ends), as without this listener.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
  stdout = dest;
  return dest;
}

/**
 * Structured JSON logs. Log ids, counts, timings and error codes only: never prompts, messages
 * or generated output (privacy by default). `redact` is a second line of defence.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    redact: {
      paths: [
        'messages',
        'prompt',
        'content',
        'input',
        '*.messages',
        '*.prompt',
        '*.content',
        '*.input',
        'authorization',
        '*.authorization',
        'apiKey',
        '*.apiKey',
      ],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return level === 'silent' ? pino(options) : pino(options, processStdout());
}

export type { Logger } from 'pino';
