import { Pool } from 'pg';

/**
 * The wallet database, reached with `pg` directly: every operation on the sign-in path is one SQL
 * statement (spend a nonce, find a wallet), so there is no ORM layer to pay for per request.
 * The schema and migrations are in ../../prisma.
 */
export type WalletDb = Pool;
export const WALLET_DB = Symbol('WALLET_DB');

export function createWalletDb(url: string, poolMax = 10, onError: (err: Error) => void = () => undefined): WalletDb {
  // Idle connections are kept for 5 minutes, as billing does: a pool that drops them between bursts
  // opens new Postgres backends (a fork each) on the hot path.
  const pool = new Pool({ connectionString: url, max: poolMax, idleTimeoutMillis: 300_000, connectionTimeoutMillis: 5_000, application_name: 'svc-wallet' });
  // An idle connection that breaks (Postgres restarted) must not crash the process; the next query reconnects.
  pool.on('error', onError);
  return pool;
}

/** A health check for `HEALTH_CHECKS`: 'ok' when `SELECT 1` answers. */
export function walletDbHealthCheck(db: WalletDb): () => Promise<string> {
  return async () => {
    await db.query('SELECT 1');
    return 'ok';
  };
}
