import { bootstrapService, RpcClient } from '@svc/messaging';
import { createServiceHarness, ServiceHarness } from '@svc/testing';
import { AppModule } from '../../../src/app.module';
import { loadServiceConfig } from '../../../src/config';
import { keysMigrationsDir } from '../../../src/database/keys-migrations';

process.env.LOG_LEVEL ??= 'warn';

/** The keys service on its own nats-server and database (ServiceHarness), and an RPC client to it. */
export interface KeysHarness extends ServiceHarness {
  rpc: RpcClient;
}

export async function createKeysHarness(prefix = 'keys'): Promise<KeysHarness> {
  const service = await createServiceHarness({
    prefix,
    migrationsDir: keysMigrationsDir(),
    boot: (urls, env) => {
      const config = loadServiceConfig({ NATS_URL: urls.nats, KEYS_DATABASE_URL: urls.db, KEYS_USED_FLUSH_MS: '50', ...env });
      return bootstrapService('keys', AppModule.forConfig(config), urls.nats);
    },
  });
  return { ...service, rpc: new RpcClient(service.nc, 5_000) };
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
