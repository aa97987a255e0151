import { INestMicroservice } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '../db';
import { PrivateNats, startPrivateNats } from '../nats/nats-server';

/** Where an instance of the service under test connects. */
export interface ServiceUrls {
  nats: string;
  db: string;
}

/**
 * A service under test with its own nats-server and migrated database, so it never answers anyone
 * else's calls. `start` boots an instance (more than one: replicas); `stop` closes them all, then
 * the test's connections, the database and the nats-server.
 */
export interface ServiceHarness {
  nats: PrivateNats;
  db: TestDatabase;
  /** The test's own connections, to call the service and read its tables. */
  nc: NatsConnection;
  sql: Client;
  /** Running instances, oldest first. */
  apps: INestMicroservice[];
  start(env?: Record<string, string>): Promise<INestMicroservice>;
  stopApp(app: INestMicroservice): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceHarnessOptions {
  /** Names the test database (`createTestDatabase`). */
  prefix: string;
  migrationsDir: string;
  /** Boots one instance of the service against `urls`, with the test's extra environment. */
  boot(urls: ServiceUrls, env: Record<string, string>): Promise<INestMicroservice>;
}

export async function createServiceHarness(options: ServiceHarnessOptions): Promise<ServiceHarness> {
  const nats = await startPrivateNats();
  const db = await createTestDatabase(options.prefix, { migrationsDir: options.migrationsDir });
  const nc = await connect({ servers: nats.url });
  const sql = new Client({ connectionString: db.url });
  await sql.connect();
  const apps: INestMicroservice[] = [];
  return {
    nats,
    db,
    nc,
    sql,
    apps,
    async start(env = {}) {
      const app = await options.boot({ nats: nats.url, db: db.url }, env);
      apps.push(app);
      return app;
    },
    async stopApp(app) {
      apps.splice(apps.indexOf(app), 1);
      await app.close();
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
