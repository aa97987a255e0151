import pino, { Logger } from 'pino';

/**
 * Structured JSON logs. Log ids, counts, timings and error codes only: never prompts, messages
 * or generated output (privacy by default). `redact` is a second line of defence.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: {
      paths: ['messages', 'prompt', 'content', 'input', '*.messages', '*.prompt', '*.content', '*.input', 'authorization', '*.authorization', 'apiKey', '*.apiKey'],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type { Logger } from 'pino';
