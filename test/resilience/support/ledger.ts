import { Client } from 'pg';

/** What billing recorded for one request id: its reservations and the net of their CHARGE and REFUND entries. */
export interface RequestCharge {
  reservations: number;
  held: number;
  /** Charged minus refunded, nano-USD. */
  netNano: bigint;
}

/** Net charge per request id, read from the billing database (ledger entries joined to reservations). */
export async function chargesByRequest(billingDatabaseUrl: string): Promise<Map<string, RequestCharge>> {
  const sql = new Client({ connectionString: billingDatabaseUrl });
  await sql.connect();
  try {
    const { rows } = await sql.query<{ request_id: string; reservations: string; held: string; net: string }>(
      `SELECT r.request_id,
              count(DISTINCT r.id) AS reservations,
              count(DISTINCT r.id) FILTER (WHERE r.status = 'HELD') AS held,
              coalesce(-sum(l.amount_nano) FILTER (WHERE l.kind IN ('CHARGE', 'REFUND')), 0) AS net
         FROM reservations r LEFT JOIN ledger_entries l ON l.reservation_id = r.id
        GROUP BY r.request_id`,
    );
    return new Map(rows.map((r) => [r.request_id, { reservations: Number(r.reservations), held: Number(r.held), netNano: BigInt(r.net) }]));
  } finally {
    await sql.end();
  }
}
