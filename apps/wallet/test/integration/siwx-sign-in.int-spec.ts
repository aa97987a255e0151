import { INestMicroservice } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';
import { privateKeyToAccount } from 'viem/accounts';
import { WALLET_AUTH } from '@svc/contracts';
import { bootstrapService, RpcClient } from '@svc/messaging';
import { createTestDatabase, KeysBillingStack, startKeysBillingStack, TestDatabase } from '@svc/testing';
import { AppModule } from '../../src/app.module';
import { loadServiceConfig } from '../../src/config';
import { walletMigrationsDir } from '../../src/database/wallet-migrations';
import { NonceStore } from '../../src/siwx/nonce-store';
import { EVM_KEYS, evmSignIn, solanaSignIn, solanaWallet } from '@svc/testing/wallet';

process.env.LOG_LEVEL ??= 'warn';

const PUBLIC_URL = 'https://wallet-int.example.test';

/** WALLET_AUTH.SIGN_IN over NATS: two wallet replicas (one with the verified-header cache off), the real keys and billing services. */
describe('Sign-In-With-X (wallet service over NATS)', () => {
  let stack: KeysBillingStack;
  let db: TestDatabase;
  let replicas: INestMicroservice[];
  let nc: NatsConnection;
  let rpc: RpcClient;

  const signIn = (header: string) => rpc.send(WALLET_AUTH.SIGN_IN, { header });

  beforeAll(async () => {
    stack = await startKeysBillingStack('walletsiwx');
    db = await createTestDatabase('walletsiwx', { migrationsDir: walletMigrationsDir() });
    stack.onStop(() => db.drop());
    await stack.ready(120_000);
    const env = { NATS_URL: stack.natsUrl, WALLET_DATABASE_URL: db.url, WALLET_MIGRATE_ON_BOOT: 'false', SIWX_PUBLIC_URL: PUBLIC_URL };
    replicas = [
      await bootstrapService('wallet', AppModule.forConfig(loadServiceConfig(env)), stack.natsUrl),
      await bootstrapService('wallet', AppModule.forConfig(loadServiceConfig({ ...env, SIWX_VERIFIED_CACHE_MAX: '0' })), stack.natsUrl),
    ];
    nc = await connect({ servers: stack.natsUrl });
    rpc = new RpcClient(nc, 10_000);
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    for (const replica of replicas ?? []) await replica.close();
    await stack?.stop();
  });

  it('creates the account on the first sign-in and finds it on the next (a fresh nonce each)', async () => {
    const alice = privateKeyToAccount(EVM_KEYS.alice);
    const first = await signIn(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL));
    expect(first).toEqual({ accountId: expect.stringMatching(/^[0-9a-f-]{36}$/), address: alice.address, network: 'evm' });
    await expect(signIn(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL))).resolves.toEqual(first);
    const sol = solanaWallet(21);
    const solana = await signIn(solanaSignIn(sol, PUBLIC_URL));
    expect(solana).toMatchObject({ address: sol.address, network: 'solana' });
    expect(solana.accountId).not.toBe(first.accountId);
  });

  it('refuses a replayed header with 401 on every replica, cache or not, and a reused nonce in a new message', async () => {
    const header = await evmSignIn(EVM_KEYS.bob, PUBLIC_URL, { nonce: 'replay0000000001' });
    await expect(signIn(header)).resolves.toMatchObject({ network: 'evm' });
    // Queue groups spread these over both replicas: the one with the cache and the one without.
    for (let i = 0; i < 6; i++)
      await expect(signIn(header)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/nonce has been used/) });
    const again = await evmSignIn(EVM_KEYS.bob, PUBLIC_URL, { nonce: 'replay0000000001' });
    await expect(signIn(again)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/nonce has been used/) });
    // A nonce is per wallet: another wallet may happen to pick the same one.
    await expect(signIn(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL, { nonce: 'replay0000000001' }))).resolves.toMatchObject({ network: 'evm' });
  });

  it('accepts one of many identical headers racing', async () => {
    const header = solanaSignIn(solanaWallet(22), PUBLIC_URL);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => signIn(header)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('refuses a bad signature or domain with 401 and spends no nonce', async () => {
    const nonce = 'notspent00000001';
    await expect(signIn(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL, { nonce, domain: 'evil.example' }))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(signIn(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL, { nonce, tamper: (m) => m.replace('Sign in', 'Sign up') }))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(signIn(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL, { nonce }))).resolves.toMatchObject({ network: 'evm' });
  });

  it('sweeps nonces once their messages have expired', async () => {
    const nonces = replicas[0].get(NonceStore);
    expect(await nonces.spend('siwx:evm', '0xsweep', 'expired000000001', Date.now() - 1_000)).toBe(true);
    expect(await nonces.sweep()).toBeGreaterThanOrEqual(1);
    expect(await nonces.spend('siwx:evm', '0xsweep', 'expired000000001', Date.now() + 60_000)).toBe(true);
    expect(await nonces.spend('siwx:evm', '0xsweep', 'expired000000001', Date.now() + 60_000)).toBe(false);
  });
});
