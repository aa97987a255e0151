import { INestMicroservice } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { bootstrapService, RpcClient } from '@svc/messaging';
import { createTestDatabase, PrivateNats, startPrivateNats, TestDatabase } from '@svc/testing';
import { AppModule } from '../../../src/app.module';
import { loadServiceConfig } from '../../../src/config';
import { keysMigrationsDir } from '../../../src/database/keys-migrations';

process.env.LOG_LEVEL ??= 'warn';

/** Its own nats-server and database: the service under test never answers anyone else's calls. */
export interface KeysHarness {
  nats: PrivateNats;
  db: TestDatabase;
  nc: NatsConnection;
  rpc: RpcClient;
  sql: Client;
  start(env?: Record<string, string>): Promise<INestMicroservice>;
  stop(): Promise<void>;
}

export async function createKeysHarness(prefix = 'keys'): Promise<KeysHarness> {
  const nats = await startPrivateNats();
  const db = await createTestDatabase(prefix, { migrationsDir: keysMigrationsDir() });
  const nc = await connect({ servers: nats.url });
  const sql = new Client({ connectionString: db.url });
  await sql.connect();
  const apps: INestMicroservice[] = [];
  return {
    nats,
    db,
    nc,
    rpc: new RpcClient(nc, 5_000),
    sql,
    async start(env = {}) {
      const config = loadServiceConfig({ NATS_URL: nats.url, KEYS_DATABASE_URL: db.url, KEYS_USED_FLUSH_MS: '50', ...env });
      const app = await bootstrapService('keys', AppModule.forConfig(config), nats.url);
      apps.push(app);
      return app;
    },
    async stop() {
      await Promise.all(apps.map((app) => app.close()));
      await nc.close();
      await sql.end();
      await db.drop();
      await nats.stop();
    },
  };
}

/** Polls until `check` returns a value other than undefined (events are asynchronous). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
