import { INestMicroservice } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { BILLING, healthSubject, KEYS } from '@svc/contracts';
import { bootstrapService, RpcClient } from '@svc/messaging';
import { createTestDatabase, KeysBillingStack, startKeysBillingStack, TestDatabase } from '@svc/testing';
import { WALLET_ACCOUNTS, WalletAccounts } from '../../src/accounts/wallet-accounts';
import { AppModule } from '../../src/app.module';
import { loadServiceConfig } from '../../src/config';
import { walletMigrationsDir } from '../../src/database/wallet-migrations';

process.env.LOG_LEVEL ??= 'warn';

/** WalletAccounts against the real keys and billing services (processes) and its own database. */
describe('WalletAccounts (keys and billing services, svc_wallet)', () => {
  let stack: KeysBillingStack;
  let db: TestDatabase;
  let replicas: INestMicroservice[];
  let nc: NatsConnection;
  let rpc: RpcClient;

  const accountsOf = (replica: INestMicroservice) => replica.get<WalletAccounts>(WALLET_ACCOUNTS);
  const keysAccountsNamed = async (name: string): Promise<number> => {
    const client = new Client({ connectionString: stack.keysDatabaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM accounts WHERE name = $1', [name]);
      return Number(rows[0].n);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    stack = await startKeysBillingStack('walletacc');
    db = await createTestDatabase('walletacc', { migrationsDir: walletMigrationsDir() });
    stack.onStop(() => db.drop());
    await stack.ready(120_000);
    const config = loadServiceConfig({ NATS_URL: stack.natsUrl, WALLET_DATABASE_URL: db.url, WALLET_MIGRATE_ON_BOOT: 'false' });
    // Two replicas: first sign-ins racing on different replicas must still make one account.
    replicas = [
      await bootstrapService('wallet', AppModule.forConfig(config), stack.natsUrl),
      await bootstrapService('wallet', AppModule.forConfig(config), stack.natsUrl),
    ];
    nc = await connect({ servers: stack.natsUrl });
    rpc = new RpcClient(nc, 10_000);
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    for (const replica of replicas ?? []) await replica.close();
    await stack?.stop();
  });

  it('creates an account keys knows and billing reports at zero, once per wallet, whatever the address case', async () => {
    const wallet = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
    const first = await accountsOf(replicas[0]).ensure(wallet.address.toLowerCase(), 'evm');
    expect(first).toEqual({ accountId: expect.stringMatching(/^[0-9a-f-]{36}$/), address: wallet.address, network: 'evm' });
    await expect(accountsOf(replicas[1]).ensure(wallet.address, 'evm')).resolves.toEqual(first);
    await expect(accountsOf(replicas[1]).find(wallet.address.toUpperCase().replace('0X', '0x'), 'evm')).resolves.toEqual(first);

    // The keys service owns the account: a key can be made for it.
    const key = await rpc.send(KEYS.CREATE, {
      accountId: first.accountId,
      apiKeyType: 'INFERENCE',
      description: 'wallet account test',
      expiresAt: null,
      consumptionLimits: { usd: null, diem: null },
      limitPeriod: 'EPOCH',
      modelPrivacy: 'ALL',
    });
    expect(key.apiKey).toMatch(/\S{20,}/);
    const balance = await rpc.send(BILLING.BALANCE, { accountId: first.accountId });
    expect(balance).toMatchObject({ usdNano: '0', canConsume: false });
    expect(await keysAccountsNamed(`wallet evm ${wallet.address}`)).toBe(1);
  });

  it('reports its database in its health answer', async () => {
    await expect(rpc.send(healthSubject('wallet'), {})).resolves.toMatchObject({ service: 'wallet', status: 'ok', checks: { database: 'ok' } });
  });

  it('makes one account when first uses race on two replicas', async () => {
    const wallet = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => accountsOf(replicas[i % 2]).ensure(wallet.address, 'evm')));
    expect(new Set(results.map((r) => r.accountId)).size).toBe(1);
    expect(await keysAccountsNamed(`wallet evm ${wallet.address}`)).toBe(1);
  });

  it('keeps Solana and EVM wallets apart and refuses what is not an address', async () => {
    const solana = base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(7)));
    await expect(accountsOf(replicas[0]).find(solana, 'solana')).resolves.toBeNull();
    const account = await accountsOf(replicas[0]).ensure(solana, 'solana');
    expect(account).toMatchObject({ address: solana, network: 'solana' });
    await expect(accountsOf(replicas[1]).find(solana, 'solana')).resolves.toEqual(account);
    await expect(accountsOf(replicas[0]).ensure(solana, 'evm')).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(accountsOf(replicas[0]).ensure('0x1234', 'evm')).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(accountsOf(replicas[0]).ensure('0OIl' + solana.slice(4), 'solana')).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});
