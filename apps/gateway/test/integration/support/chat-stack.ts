import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, NatsConnection } from 'nats';
import { KEYS } from '@svc/contracts';
import { serviceMigrationsDir } from '@svc/database';
import { RpcClient } from '@svc/messaging';
import { createTestDatabase, freePort, startFakeBilling, startPrivateNats, startPrivateRedis, startService } from '@svc/testing';
import { ApiAnswer, ApiRequest, requestApi } from './chat-http';

export interface ChatStackOptions {
  /** Short name: the temp dir, database prefixes, test account and key description. */
  name: string;
  /** The model catalog YAML the services read. */
  catalog: string;
  /** Extra environment for every process, e.g. the catalog's upstream URLs. */
  env?: Record<string, string>;
  /** Extra environment for the chat service only. */
  chatEnv?: Record<string, string>;
  /** How long each service may take to start; 90 s unless said. */
  readyTimeoutMs?: number;
}

export interface ChatStack {
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  /** The INFERENCE key of the stack's test account. */
  inferenceKey: string;
  /** The test's own NATS connection (the fake billing answers on it). */
  nc: NatsConnection;
  newKey(apiKeyType: 'INFERENCE' | 'ADMIN'): Promise<string>;
  /** A gateway request with the inference key unless `init.key` says otherwise. */
  request(pathname: string, init?: ApiRequest): Promise<ApiAnswer>;
  stop(): Promise<void>;
}

/**
 * A private NATS and Redis, fresh keys and chat databases, fake billing, and the keys, chat and
 * gateway services as processes from their sources (rate limits and abuse protection off), with
 * one test account and its INFERENCE key.
 */
export async function startChatStack(options: ChatStackOptions): Promise<ChatStack> {
  const stops: Array<() => Promise<unknown> | unknown> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => undefined);
    stops.length = 0;
  };
  try {
    const dir = mkdtempSync(path.join(os.tmpdir(), `svc-${options.name}-`));
    stops.push(() => rmSync(dir, { recursive: true, force: true }));
    const catalogPath = path.join(dir, 'catalog.yaml');
    writeFileSync(catalogPath, options.catalog);
    const nats = await startPrivateNats();
    stops.push(() => nats.stop());
    const redis = await startPrivateRedis();
    stops.push(() => redis.stop());
    const [keysDb, chatDb] = await Promise.all([
      createTestDatabase(`gw${options.name}_keys`, { migrationsDir: serviceMigrationsDir('keys') }),
      createTestDatabase(`gw${options.name}_chat`, { migrationsDir: serviceMigrationsDir('chat') }),
    ]);
    stops.push(
      () => keysDb.drop(),
      () => chatDb.drop(),
    );
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    stops.push(startFakeBilling(nc));

    const common = { NATS_URL: nats.url, REDIS_URL: redis.url, SVC_CATALOG_PATH: catalogPath, ...options.env };
    const keys = startService('keys', 'apps/keys/src/main.ts', { ...common, KEYS_DATABASE_URL: keysDb.url, KEYS_MIGRATE_ON_BOOT: 'false' });
    const chat = startService('chat', 'apps/chat/src/main.ts', {
      ...common,
      CHAT_DATABASE_URL: chatDb.url,
      CHAT_MIGRATE_ON_BOOT: 'false',
      LLAMA_THREADS: '1',
      ...options.chatEnv,
    });
    const port = await freePort();
    const gateway = startService('gateway', 'apps/gateway/src/main.ts', {
      ...common,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMITS_ENABLED: 'false',
      ABUSE_PROTECTION_ENABLED: 'false',
    });
    stops.push(
      () => keys.stop(),
      () => chat.stop(),
      () => gateway.stop(),
    );
    const ready = options.readyTimeoutMs ?? 90_000;
    await Promise.all([keys.waitFor('keys service ready', ready), chat.waitFor('chat service ready', ready), gateway.waitFor('gateway listening', ready)]);
    const api = `http://127.0.0.1:${port}/api/v1`;

    const rpc = new RpcClient(nc, 10_000);
    const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: `chat ${options.name} test` });
    const newKey = async (apiKeyType: 'INFERENCE' | 'ADMIN') =>
      (
        await rpc.send(KEYS.CREATE, {
          accountId,
          apiKeyType,
          description: options.name,
          expiresAt: null,
          consumptionLimits: { usd: null, diem: null },
          limitPeriod: 'EPOCH',
          modelPrivacy: 'ALL',
        })
      ).apiKey;
    const inferenceKey = await newKey('INFERENCE');
    return { api, inferenceKey, nc, newKey, request: (pathname, init = {}) => requestApi(api, pathname, { ...init, key: init.key ?? inferenceKey }), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
