import { Server } from 'node:http';
import { Logger } from '@svc/logging';

const WARN_EVERY_MS = 10_000;

/**
 * At most `max` open connections per client address (0: no cap): one more is closed as it
 * arrives, before a byte is read, so one client cannot hold every socket (slowloris). Refusals
 * are logged at most once per 10 s, with how many there were.
 */
export function capConnectionsPerAddress(server: Server, max: number, logger: Logger): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  let refused = 0;
  let lastWarning = 0;
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      refused++;
      if (Date.now() - lastWarning >= WARN_EVERY_MS) {
        lastWarning = Date.now();
        logger.warn({ address, max, refused }, 'connections refused: a client address is over MAX_CONNECTIONS_PER_IP');
        refused = 0;
      }
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
