/**
 * Whether an error means a dependency (PostgreSQL, Redis) is unreachable or restarting, not that
 * the request or the code is wrong: the caller should get a 503 to retry, not a 500.
 * Covers node's socket errors, pg's lost connections, PostgreSQL's connection-class and shutdown
 * SQLSTATEs, and Prisma's "can't reach the database" codes.
 */
export function isUnavailableDependency(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || /^(08|57P0)/.test(code))) return true;
    if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true;
  }
  return false;
}

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** P1001 can't reach, P1002 timed out, P1008 operation timed out, P1017 server closed the connection, P2024 pool timeout. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const LOST_CONNECTION =
  /Connection terminated|connection (was )?(closed|lost)|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|Can't reach database server|Client has encountered a connection error|Database error\. Code: `(08|57P0)/i;
