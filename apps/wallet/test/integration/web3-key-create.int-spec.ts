import { INestMicroservice } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { privateKeyToAccount } from 'viem/accounts';
import { hashApiKeySecret } from '@svc/auth';
import { KEYS, WALLET_AUTH, Web3KeyCreateRequest } from '@svc/contracts';
import { bootstrapService, RpcClient } from '@svc/messaging';
import { createTestDatabase, KeysBillingStack, startKeysBillingStack, TestDatabase } from '@svc/testing';
import { EVM_KEYS, evmSignIn, solanaWallet } from '@svc/testing/wallet';
import { AppModule } from '../../src/app.module';
import { loadServiceConfig } from '../../src/config';
import { walletMigrationsDir } from '../../src/database/wallet-migrations';
import { Web3KeyTokens } from '../../src/web3-keys/web3-key-tokens';

process.env.LOG_LEVEL ??= 'warn';

const PUBLIC_URL = 'https://web3-key.example.test';
const KEY: Web3KeyCreateRequest['key'] = {
  apiKeyType: 'INFERENCE',
  description: 'Web3 API Key',
  expiresAt: null,
  consumptionLimits: { usd: 5, diem: null },
  limitPeriod: 'MONTH',
  modelPrivacy: 'ALL',
};

/** generate_web3_key in the wallet service with the real keys service: the token, its signature, the key. */
describe('generate_web3_key (wallet service over NATS)', () => {
  let stack: KeysBillingStack;
  let db: TestDatabase;
  let wallet: INestMicroservice;
  let nc: NatsConnection;
  let rpc: RpcClient;
  const alice = privateKeyToAccount(EVM_KEYS.alice);

  const token = async () => (await rpc.send(WALLET_AUTH.WEB3_KEY_TOKEN, {})).token;
  const create = (request: Omit<Web3KeyCreateRequest, 'key'>) => rpc.send(WALLET_AUTH.WEB3_KEY_CREATE, { ...request, key: KEY });

  beforeAll(async () => {
    stack = await startKeysBillingStack('walletw3k');
    db = await createTestDatabase('walletw3k', { migrationsDir: walletMigrationsDir() });
    stack.onStop(() => db.drop());
    await stack.ready(120_000);
    const config = loadServiceConfig({ NATS_URL: stack.natsUrl, WALLET_DATABASE_URL: db.url, WALLET_MIGRATE_ON_BOOT: 'false', SIWX_PUBLIC_URL: PUBLIC_URL });
    wallet = await bootstrapService('wallet', AppModule.forConfig(config), stack.natsUrl);
    nc = await connect({ servers: stack.natsUrl });
    rpc = new RpcClient(nc, 10_000);
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    await wallet?.close();
    await stack?.stop();
  });

  it('creates a working key for the account the wallet signs in with', async () => {
    const t = await token();
    expect(t).toMatch(/^w3k\.[\w-]+\.[\w-]+$/);
    const created = await create({ address: alice.address, token: t, signature: await alice.signMessage({ message: t }) });
    expect(created.data).toMatchObject({
      apiKeyType: 'INFERENCE',
      description: 'Web3 API Key',
      consumptionLimits: { usd: 5, diem: null },
      limitPeriod: 'MONTH',
    });
    const { key } = await rpc.send(KEYS.VERIFY, { secretHash: hashApiKeySecret(created.apiKey) });
    const signedIn = await rpc.send(WALLET_AUTH.SIGN_IN, { header: await evmSignIn(EVM_KEYS.alice, PUBLIC_URL) });
    expect(key).toMatchObject({ id: created.data.id, accountId: signedIn.accountId });
  });

  it('accepts a Solana wallet signing the token with Ed25519', async () => {
    const sol = solanaWallet(44);
    const t = await token();
    const signature = base58.encode(ed25519.sign(new TextEncoder().encode(t), sol.secretKey));
    await expect(create({ address: sol.address, token: t, signature })).resolves.toMatchObject({ data: { apiKeyType: 'INFERENCE' } });
  });

  it('refuses a used token, an altered one, an expired one and a signature by another wallet (401)', async () => {
    const t = await token();
    const signature = await alice.signMessage({ message: t });
    await create({ address: alice.address, token: t, signature });
    await expect(create({ address: alice.address, token: t, signature })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringMatching(/used already/),
    });

    const fresh = await token();
    const [prefix, payload, mac] = fresh.split('.');
    const altered = `${prefix}.${Buffer.from(JSON.stringify({ n: 'f'.repeat(32), exp: Date.now() + 3_600_000 })).toString('base64url')}.${mac}`;
    await expect(create({ address: alice.address, token: altered, signature: await alice.signMessage({ message: altered }) })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringMatching(/Invalid token/),
    });
    expect(payload).not.toBe(altered.split('.')[1]);

    const bob = privateKeyToAccount(EVM_KEYS.bob);
    await expect(create({ address: alice.address, token: fresh, signature: await bob.signMessage({ message: fresh }) })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringMatching(/not the token signed by this address/),
    });
    // The refused attempt spent nothing: the right signature still works.
    await expect(create({ address: alice.address, token: fresh, signature: await alice.signMessage({ message: fresh }) })).resolves.toBeDefined();

    const tokens = wallet.get(Web3KeyTokens);
    const later = await token();
    await expect(tokens.check(later, Date.now() + 11 * 60_000)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/expired/) });
  });
});
