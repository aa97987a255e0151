// A process that logs through createLogger, for logger.int-spec.ts. argv: `exit` | `signal` | `handled-signal`.
import { createLogger } from '../../src';

const logger = createLogger('log-test', 'info');
const mode = process.argv[2];
logger.info('before');
if (mode === 'exit') process.exit(0);
if (mode === 'handled-signal') {
  // Like Nest's shutdown hooks: handle the signal, log during shutdown, then raise it again.
  process.once('SIGTERM', () => {
    logger.info('during shutdown');
    setTimeout(() => process.kill(process.pid, 'SIGTERM'), 50);
  });
}
if (mode === 'signal' || mode === 'handled-signal') process.kill(process.pid, 'SIGTERM');
setTimeout(() => undefined, 10_000);
