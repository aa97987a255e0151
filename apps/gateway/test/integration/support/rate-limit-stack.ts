import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { KEYS, RateLimitOverride } from '@svc/contracts';
import { serviceMigrationsDir } from '@svc/database';
import { RpcClient } from '@svc/messaging';
import {
  createTestDatabase,
  FakeOpenAiUpstream,
  freePort,
  PrivateNats,
  ServiceProcess,
  startFakeBilling,
  startFakeOpenAiUpstream,
  startPrivateNats,
  startService,
  TestDatabase,
} from '@svc/testing';

/** Cheap models: every text model is proxied to the test's fake upstream, so no CPU goes to inference. */
const CATALOG = `
models:
  - id: rl-text
    name: Rate-limit test model (tier L)
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${RL_TEST_UPSTREAM_URL}", model: fake-model, timeoutMs: 10000 }
    rateLimitTier: L
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 8192
    maxCompletionTokens: 2048
  - id: rl-text-xs
    name: Rate-limit test model (tier XS)
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${RL_TEST_UPSTREAM_URL}", model: fake-model, timeoutMs: 10000 }
    rateLimitTier: XS
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 8192
    maxCompletionTokens: 2048
  - id: rl-image
    name: Rate-limit test image model (listed only)
    type: image
    engine: { kind: openai-compatible, baseUrl: "\${RL_TEST_UPSTREAM_URL}", model: fake-image }
    pricing: { generation: { usd: 0.01, diem: 0.01 } }
`;

export interface Gateway {
  name: string;
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  process: ServiceProcess;
}

export interface TestKey {
  id: string;
  secret: string;
}

export interface TestCaller {
  accountId: string;
  inference: TestKey;
  admin: TestKey;
}

/** The chat service's system prompt in this stack (token limits count it in every hold). */
export const RATE_LIMIT_SYSTEM_PROMPT = 'You are a test assistant.';

export interface RateLimitStack {
  prefix: string;
  upstream: FakeOpenAiUpstream;
  redis: Redis;
  db: TestDatabase;
  /** Starts a gateway process on this stack (its NATS, catalog and Redis prefix unless `env` says otherwise). */
  startGateway(name: string, env?: Record<string, string>): Promise<Gateway>;
  newCaller(name?: string): Promise<TestCaller>;
  newKey(accountId: string, type?: 'INFERENCE' | 'ADMIN'): Promise<TestKey>;
  setAccountLimits(accountId: string, limits: Partial<RateLimitOverride> & Pick<RateLimitOverride, 'target'>): Promise<void>;
  setKeyLimits(keyId: string, limits: Partial<RateLimitOverride> & Pick<RateLimitOverride, 'target'>): Promise<void>;
  setTier(accountId: string, tier: 'PAID' | 'PARTNER'): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A private NATS server, a fresh keys database, the keys and chat services as processes, a fake
 * OpenAI upstream, and gateway processes on demand, all sharing the local Redis under a key
 * prefix of this run only (so parallel runs never collide). Processes run the TypeScript sources.
 */
export async function startRateLimitStack(): Promise<RateLimitStack> {
  const prefix = `svc_test_rl_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}:`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-rl-'));
  const catalogPath = path.join(dir, 'catalog.yaml');
  writeFileSync(catalogPath, CATALOG);

  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
  };
  try {
    const nats: PrivateNats = await startPrivateNats();
    stops.push(() => nats.stop());
    const { upstream, baseUrl, close } = await startFakeOpenAiUpstream({ completionTokens: 8, recordLimit: 0 });
    stops.push(close);
    const db = await createTestDatabase('gwrl', { migrationsDir: serviceMigrationsDir('keys') });
    stops.push(() => db.drop());
    const chatDb = await createTestDatabase('gwrlchat', { migrationsDir: serviceMigrationsDir('chat') });
    stops.push(() => chatDb.drop());
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: false });
    stops.push(async () => {
      await deleteByPrefix(redis, prefix);
      await redis.quit();
    });
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    stops.push(() => sql.end());
    const nc: NatsConnection = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const rpc = new RpcClient(nc, 10_000);
    const stopBilling = startFakeBilling(nc);
    stops.push(async () => stopBilling());

    const common = { NATS_URL: nats.url, SVC_CATALOG_PATH: catalogPath, RL_TEST_UPSTREAM_URL: baseUrl };
    const keys = startService('keys', 'apps/keys/src/main.ts', {
      ...common,
      KEYS_DATABASE_URL: db.url,
      KEYS_MIGRATE_ON_BOOT: 'false',
      KEYS_USED_FLUSH_MS: '500',
    });
    stops.push(() => keys.stop());
    const chat = startService('chat', 'apps/chat/src/main.ts', {
      ...common,
      CHAT_DATABASE_URL: chatDb.url,
      CHAT_MIGRATE_ON_BOOT: 'false',
      SVC_SYSTEM_PROMPT: RATE_LIMIT_SYSTEM_PROMPT,
    });
    stops.push(() => chat.stop());
    await Promise.all([keys.waitFor('keys service ready', 60_000), chat.waitFor('chat service ready', 60_000)]);

    const newKey = async (accountId: string, type: 'INFERENCE' | 'ADMIN' = 'INFERENCE'): Promise<TestKey> => {
      const created = await rpc.send(KEYS.CREATE, {
        accountId,
        apiKeyType: type,
        description: 'rate-limit test',
        expiresAt: null,
        consumptionLimits: { usd: null, diem: null },
        limitPeriod: 'EPOCH',
        modelPrivacy: 'ALL',
      });
      return { id: created.data.id, secret: created.apiKey };
    };
    const upsert = (table: string, column: string) => async (id: string, l: Partial<RateLimitOverride> & Pick<RateLimitOverride, 'target'>) => {
      await sql.query(
        `INSERT INTO ${table} (${column}, target, rpm, tpm, rpd) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (${column}, target) DO UPDATE SET rpm = EXCLUDED.rpm, tpm = EXCLUDED.tpm, rpd = EXCLUDED.rpd`,
        [id, l.target, l.rpm ?? null, l.tpm ?? null, l.rpd ?? null],
      );
    };

    return {
      prefix,
      upstream,
      redis,
      db,
      async startGateway(name, env = {}) {
        const port = await freePort();
        const gateway = startService(name, 'apps/gateway/src/main.ts', { ...common, PORT: String(port), HOST: '127.0.0.1', REDIS_KEY_PREFIX: prefix, ...env });
        stops.push(() => gateway.stop());
        await gateway.waitFor('gateway listening', 60_000);
        return { name, api: `http://127.0.0.1:${port}/api/v1`, process: gateway };
      },
      async newCaller(name = 'rate-limit test') {
        const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name });
        const [inference, admin] = await Promise.all([newKey(accountId, 'INFERENCE'), newKey(accountId, 'ADMIN')]);
        return { accountId, inference, admin };
      },
      newKey,
      setAccountLimits: upsert('account_rate_limits', 'account_id'),
      setKeyLimits: upsert('api_key_rate_limits', 'api_key_id'),
      async setTier(accountId, tier) {
        await sql.query('UPDATE accounts SET api_tier = $2 WHERE id = $1', [accountId, tier]);
      },
      async stop() {
        await stopAll();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}
