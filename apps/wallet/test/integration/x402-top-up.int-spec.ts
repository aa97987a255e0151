import { INestMicroservice } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';
import { BILLING, BILLING_X402, X402 } from '@svc/contracts';
import { bootstrapService, RpcClient } from '@svc/messaging';
import { createTestDatabase, KeysBillingStack, startKeysBillingStack, TestDatabase } from '@svc/testing';
import { WALLET_ACCOUNTS, WalletAccounts } from '../../src/accounts/wallet-accounts';
import { AppModule } from '../../src/app.module';
import { loadServiceConfig } from '../../src/config';
import { walletMigrationsDir } from '../../src/database/wallet-migrations';
import { X402Resumer } from '../../src/x402/x402-resumer';
import { BASE_PAY_TO, evmPayment, FacilitatorDouble, SOLANA_FEE_PAYER, SOLANA_PAY_TO, solanaPayment, tampered } from '@svc/testing/wallet';

process.env.LOG_LEVEL ??= 'warn';

/**
 * x402 top-ups through the wallet service (two replicas) against the real keys and billing
 * services and a local facilitator double: credited once, whatever races or restarts.
 */
describe('x402 top-ups (wallet, keys and billing services, a facilitator double)', () => {
  let stack: KeysBillingStack;
  let db: TestDatabase;
  let replicas: INestMicroservice[];
  let nc: NatsConnection;
  let rpc: RpcClient;
  const facilitator = new FacilitatorDouble();

  beforeAll(async () => {
    const facilitatorUrl = await facilitator.start();
    stack = await startKeysBillingStack('walletx402');
    db = await createTestDatabase('walletx402', { migrationsDir: walletMigrationsDir() });
    stack.onStop(() => db.drop());
    await stack.ready(120_000);
    const config = loadServiceConfig({
      NATS_URL: stack.natsUrl,
      WALLET_DATABASE_URL: db.url,
      WALLET_MIGRATE_ON_BOOT: 'false',
      X402_FACILITATOR_URL: facilitatorUrl,
      X402_BASE_PAY_TO: BASE_PAY_TO,
      X402_SOLANA_PAY_TO: SOLANA_PAY_TO,
      X402_SOLANA_FEE_PAYER: SOLANA_FEE_PAYER,
      X402_RESUME_AFTER_MS: '3600000',
    });
    replicas = [
      await bootstrapService('wallet', AppModule.forConfig(config), stack.natsUrl),
      await bootstrapService('wallet', AppModule.forConfig(config), stack.natsUrl),
    ];
    nc = await connect({ servers: stack.natsUrl });
    rpc = new RpcClient(nc, 20_000);
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    for (const replica of replicas ?? []) await replica.close();
    await stack?.stop();
    await facilitator.close();
  });

  beforeEach(() => {
    facilitator.mode = 'accept';
    facilitator.settleDelayMs = 0;
  });

  const topUp = (payment: string) => rpc.send(X402.TOP_UP, { requestId: 'x402-test', payment });
  const accountOf = async (payer: string) => (await replicas[0].get<WalletAccounts>(WALLET_ACCOUNTS).find(payer, 'evm'))!.accountId;
  const usdOf = async (payer: string) => (await rpc.send(BILLING.BALANCE, { accountId: await accountOf(payer) })).usdNano;

  it('offers USDC on Base and on Solana with the configured pay-to and the 5 USD minimum', async () => {
    const { accepts } = await rpc.send(X402.REQUIREMENTS, { requestId: 'x402-test' });
    expect(accepts).toEqual([
      expect.objectContaining({ scheme: 'exact', network: 'eip155:8453', amount: '5000000', payTo: BASE_PAY_TO, extra: { name: 'USD Coin', version: '2' } }),
      expect.objectContaining({
        scheme: 'exact',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        amount: '5000000',
        asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        payTo: SOLANA_PAY_TO,
        extra: { feePayer: SOLANA_FEE_PAYER },
      }),
    ]);
  });

  it('credits a Solana USDC payment once to the Solana wallet’s account', async () => {
    const p = await solanaPayment({ usd: 8 });
    const reply = await topUp(p.header);
    expect(reply).toMatchObject({ walletAddress: p.payer, amountCredited: 8, newBalance: 8 });
    const settlement = JSON.parse(Buffer.from(reply.paymentResponse, 'base64').toString('utf8'));
    expect(settlement).toMatchObject({ success: true, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', payer: p.payer });
    const account = await replicas[0].get<WalletAccounts>(WALLET_ACCOUNTS).find(p.payer, 'solana');
    expect((await rpc.send(BILLING.BALANCE, { accountId: account!.accountId })).usdNano).toBe('8000000000');
    await expect(topUp(p.header)).rejects.toMatchObject({ code: 'CONFLICT', details: { _errors: ['nonce_already_used'] } });
  });

  it('settles and credits a signed payment once; the same payment again is a replay', async () => {
    const p = await evmPayment({ usd: 12.5 });
    const reply = await topUp(p.header);
    expect(reply).toMatchObject({ walletAddress: p.payer, amountCredited: 12.5, newBalance: 12.5, paymentId: expect.any(String) });
    const settlement = JSON.parse(Buffer.from(reply.paymentResponse, 'base64').toString('utf8'));
    expect(settlement).toEqual({ success: true, network: 'eip155:8453', payer: p.payer, transaction: facilitator.settled.get(`eip155:8453:${p.nonce}`) });
    expect(await usdOf(p.payer)).toBe('12500000000');

    const settles = facilitator.calls.settle;
    await expect(topUp(p.header)).rejects.toMatchObject({ code: 'CONFLICT', details: { _errors: ['nonce_already_used'] } });
    expect(facilitator.calls.settle).toBe(settles);
    expect(await usdOf(p.payer)).toBe('12500000000');
  });

  it('two identical payments racing on two replicas: one is credited, settled once', async () => {
    facilitator.settleDelayMs = 300;
    const p = await evmPayment({ usd: 20 });
    const settles = facilitator.calls.settle;
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => topUp(p.header)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) expect(r.reason).toMatchObject({ code: 'CONFLICT' });
    expect(facilitator.calls.settle - settles).toBe(1);
    expect(await usdOf(p.payer)).toBe('20000000000');
  });

  it('credits nothing when the facilitator refuses, and the payment may be sent again', async () => {
    facilitator.mode = 'refuse-verify';
    const p = await evmPayment({ usd: 6 });
    await expect(topUp(p.header)).rejects.toMatchObject({ code: 'VALIDATION', details: { _errors: ['facilitator_refused'] } });
    expect(await usdOf(p.payer)).toBe('0');
    facilitator.mode = 'accept';
    await expect(topUp(p.header)).resolves.toMatchObject({ amountCredited: 6, newBalance: 6 });
  });

  it('refuses locally, before any facilitator call: tampered, expired, unknown network', async () => {
    const calls = facilitator.calls.verify;
    const p = await evmPayment({ usd: 10 });
    const cheat = tampered(p, (payload) => {
      payload.accepted.amount = '50000000';
      payload.payload.authorization.value = '50000000';
    });
    await expect(topUp(cheat)).rejects.toMatchObject({ code: 'VALIDATION', details: { _errors: ['invalid_signature'] } });
    await expect(topUp((await evmPayment({ validBefore: Math.floor(Date.now() / 1000) - 5 })).header)).rejects.toMatchObject({
      details: { _errors: ['expired'] },
    });
    await expect(topUp((await evmPayment({ accepted: { network: 'eip155:1' } })).header)).rejects.toMatchObject({ details: { _errors: ['unknown_network'] } });
    expect(facilitator.calls.verify).toBe(calls);
  });

  it('a settle without an answer is never credited; the resumer finishes it once the facilitator answers', async () => {
    facilitator.mode = 'settle-500';
    const p = await evmPayment({ usd: 9 });
    await expect(topUp(p.header)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await usdOf(p.payer)).toBe('0');
    // While it is unresolved the same payment is not settled twice.
    await expect(topUp(p.header)).rejects.toMatchObject({ code: 'CONFLICT', details: { _errors: ['payment_in_progress'] } });
    facilitator.mode = 'accept';
    await replicas[1].get(X402Resumer).resume(0);
    expect(await usdOf(p.payer)).toBe('9000000000');
    await replicas[0].get(X402Resumer).resume(0);
    expect(await usdOf(p.payer)).toBe('9000000000');
  });

  it('a payment settled before a restart (not yet credited) is credited once, by the client’s retry, never again by the resumer', async () => {
    const p = await evmPayment({ usd: 7 });
    // What a replica leaves behind when it stops between the facilitator's settle and the credit.
    const accountId = (await replicas[0].get<WalletAccounts>(WALLET_ACCOUNTS).ensure(p.payer, 'evm')).accountId;
    const reference = `eip155:8453:${p.payer.toLowerCase()}:${p.nonce}`;
    await rpc.send(BILLING_X402.CLAIM, { reference, accountId, walletAddress: p.payer, network: 'eip155:8453', amountNano: '7000000000', payment: {} });
    await rpc.send(BILLING_X402.SETTLED, { reference, transaction: '0xfeed' });
    const settles = facilitator.calls.settle;
    await expect(topUp(p.header)).resolves.toMatchObject({ amountCredited: 7, newBalance: 7 });
    expect(await replicas[1].get(X402Resumer).resume(0)).toBe(0);
    await expect(topUp(p.header)).rejects.toMatchObject({ details: { _errors: ['nonce_already_used'] } });
    expect(facilitator.calls.settle).toBe(settles);
    expect(await usdOf(p.payer)).toBe('7000000000');
  });

  it('reads the balance and the transactions back from billing, only within the wallet’s account', async () => {
    const p = await evmPayment({ usd: 5 });
    await topUp(p.header);
    const accountId = await accountOf(p.payer);
    const balance = await rpc.send(X402.BALANCE, { requestId: 'x402-test', walletAddress: p.payer.toLowerCase(), accountId });
    expect(balance).toEqual({ walletAddress: p.payer, balanceUsd: 5, canConsume: true, minimumTopUpUsd: 5, suggestedTopUpUsd: 10 });
    const history = await rpc.send(X402.TRANSACTIONS, { requestId: 'x402-test', walletAddress: p.payer, accountId, limit: 10, offset: 0 });
    expect(history).toMatchObject({
      walletAddress: p.payer,
      currentBalance: 5,
      transactions: [{ amount: 5, balanceAfter: 5, type: 'TOP_UP', requestId: null, modelId: null }],
      pagination: { limit: 10, offset: 0, hasMore: false },
    });
    const otherAccount = '00000000-0000-4000-8000-000000000000';
    await expect(rpc.send(X402.BALANCE, { requestId: 'x402-test', walletAddress: p.payer, accountId: otherAccount })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});
