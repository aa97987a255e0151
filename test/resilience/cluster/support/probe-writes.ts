import { Client } from 'pg';
import { performance } from 'node:perf_hooks';

export interface ProbeWrites {
  /** Ids whose INSERT the server acknowledged (COMMIT returned), with when (ms on this loop's clock). */
  acknowledged: { id: number; at: number }[];
  failures: number;
  now(): number;
  stop(): Promise<void>;
}

/**
 * A writer through the PostgreSQL proxy: one INSERT every `everyMs` on a new connection (as a
 * service's pool makes after losing one), each id recorded once its commit is acknowledged.
 */
export async function startProbeWrites(url: string, everyMs = 50): Promise<ProbeWrites> {
  const setup = new Client({ connectionString: url });
  await setup.connect();
  await setup.query('CREATE TABLE IF NOT EXISTS cluster_probe (id bigint PRIMARY KEY, written_at timestamptz NOT NULL DEFAULT now())');
  const { rows } = await setup.query<{ next: string }>('SELECT coalesce(max(id), 0) + 1 AS next FROM cluster_probe');
  await setup.end();
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const probe: ProbeWrites = { acknowledged: [], failures: 0, now, stop: async () => undefined };
  let next = Number(rows[0].next);
  let running = true;
  const loop = (async () => {
    while (running) {
      const id = next++;
      const client = new Client({ connectionString: url, connectionTimeoutMillis: 1_000, query_timeout: 2_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('INSERT INTO cluster_probe (id) VALUES ($1)', [id]);
        probe.acknowledged.push({ id, at: now() });
      } catch {
        probe.failures++;
      } finally {
        await client.end().catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  probe.stop = async () => {
    running = false;
    await loop;
  };
  return probe;
}

/** Of `ids`, those the server at `url` does not have. */
export async function missingProbeWrites(url: string, ids: number[]): Promise<number[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('SELECT id FROM cluster_probe WHERE id = ANY($1::bigint[])', [ids]);
    const present = new Set(rows.map((r) => Number(r.id)));
    return ids.filter((id) => !present.has(id));
  } finally {
    await client.end();
  }
}
