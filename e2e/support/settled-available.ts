import { Client } from 'pg';

/**
 * The account's available USD (nano) once no hold of it is open: settlement is asynchronous, and
 * an idle credit lease closes within about a second.
 */
export async function settledAvailable(db: Client, account: string): Promise<bigint> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const { rows } = await db.query<{ open: string; available: string }>(
      `SELECT (SELECT count(*) FROM reservations WHERE account_id = $1 AND status = 'HELD') + (SELECT count(*) FROM leases WHERE account_id = $1 AND status <> 'CLOSED') AS open,
              (SELECT balance_usd_nano - held_usd_nano FROM billing_accounts WHERE id = $1) AS available`,
      [account],
    );
    if (Number(rows[0].open) === 0) return BigInt(rows[0].available);
  }
  throw new Error('holds were still open after 20 s');
}
