import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { REPO_ROOT } from '@svc/config';
import { jsonHttp, operatorCli, RunningPlatform, startFakeOpenAiUpstream, startPlatform } from '@svc/testing';
import { BASE_PAY_TO, BASE_USDC, EVM_KEYS, evmPayment, evmSignIn, FacilitatorDouble, tampered } from '@svc/testing/wallet';

const PUBLIC_URL = 'https://api.x402-e2e.test';
const MODEL = 'money-upstream';

/**
 * A wallet tops up with USDC over x402 on the whole platform (a local facilitator double stands in
 * for the chain), then spends it with SIGN-IN-WITH-X: a 402 lists the payment options, a signed
 * payment is credited exactly once whatever races or replays, every bad payment is a 400 that
 * credits nothing, and the balance read back goes down by what inference charged.
 */
describe('x402 top-ups on the whole platform', () => {
  let platform: RunningPlatform;
  let closeUpstream: () => Promise<void>;
  let cli: ReturnType<typeof operatorCli>;
  const facilitator = new FacilitatorDouble();
  const alice = privateKeyToAccount(EVM_KEYS.alice);

  const { post, get } = jsonHttp(() => platform.apiUrl);
  const topUp = (header: string, name = 'payment-signature') => post('/x402/top-up', { [name]: header });
  const signedIn = async () => ({ 'sign-in-with-x': await evmSignIn(EVM_KEYS.alice, PUBLIC_URL) });
  /** JSON numbers of USD as nano-USD, to compare without float error. */
  const nano = (usd: number): bigint => BigInt(Math.round(usd * 1e9));
  const decode = (value: string | null) => JSON.parse(Buffer.from(value ?? '', 'base64').toString('utf8'));

  beforeAll(async () => {
    const upstream = await startFakeOpenAiUpstream({ completionTokens: 8, recordLimit: 0 });
    closeUpstream = upstream.close;
    platform = await startPlatform({
      env: {
        SVC_CATALOG_PATH: path.join(REPO_ROOT, 'e2e/fixtures/money-catalog.yaml'),
        E2E_UPSTREAM_URL: upstream.baseUrl,
        SIWX_PUBLIC_URL: PUBLIC_URL,
        X402_FACILITATOR_URL: await facilitator.start(),
        X402_BASE_PAY_TO: BASE_PAY_TO,
        ABUSE_PROTECTION_ENABLED: 'false',
        LOG_LEVEL: 'warn',
      },
      timeoutMs: 150_000,
    });
    cli = operatorCli(platform.env);
  }, 200_000);

  afterAll(async () => {
    await platform?.stop();
    await closeUpstream?.();
    await facilitator.close();
  });

  it('answers 402 with the payment options when no payment is sent', async () => {
    const res = await post('/x402/top-up', {});
    expect(res.status).toBe(402);
    const accepts = [
      {
        scheme: 'exact',
        network: 'eip155:8453',
        amount: '5000000',
        asset: BASE_USDC,
        payTo: BASE_PAY_TO,
        maxTimeoutSeconds: 300,
        extra: { name: 'USD Coin', version: '2' },
      },
    ];
    expect(res.body).toEqual({ x402Version: 2, accepts });
    expect(decode(res.headers.get('payment-required'))).toEqual({ x402Version: 2, accepts });
  });

  it('credits a signed payment once, answers PAYMENT-RESPONSE, and refuses the same payment again', async () => {
    const p = await evmPayment({ privateKey: EVM_KEYS.alice, usd: 10 });
    const res = await topUp(p.header);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { walletAddress: alice.address, amountCredited: 10, newBalance: 10, paymentId: expect.any(String) } });
    expect(decode(res.headers.get('payment-response'))).toEqual({
      success: true,
      network: 'eip155:8453',
      payer: alice.address,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    const replay = await topUp(p.header, 'x-payment');
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual({ error: expect.stringMatching(/already used/), details: { _errors: ['nonce_already_used'] } });
    const balance = await get(`/x402/balance/${alice.address.toLowerCase()}`, await signedIn());
    expect(balance.body).toEqual({
      success: true,
      data: { walletAddress: alice.address, balanceUsd: 10, canConsume: true, minimumTopUpUsd: 5, suggestedTopUpUsd: 10 },
    });
  });

  it('two identical payments racing: one 200, one 409, credited and settled once', async () => {
    const p = await evmPayment({ privateKey: EVM_KEYS.alice, usd: 5 });
    facilitator.settleDelayMs = 300;
    const settles = facilitator.calls.settle;
    const statuses = (await Promise.all([topUp(p.header), topUp(p.header, 'x-402-payment')])).map((r) => r.status).sort();
    facilitator.settleDelayMs = 0;
    expect(statuses).toEqual([200, 409]);
    expect(facilitator.calls.settle - settles).toBe(1);
    expect((await get(`/x402/balance/${alice.address}`, await signedIn())).body.data.balanceUsd).toBe(15);
  });

  it('refuses every bad payment with a 400 naming why, before the facilitator, crediting nothing', async () => {
    const verifies = facilitator.calls.verify;
    const now = Math.floor(Date.now() / 1000);
    const good = await evmPayment({ usd: 10 });
    const cases: Array<[string, string]> = [
      [tampered(good, (x) => ((x.payload.authorization.value = '90000000'), (x.accepted.amount = '90000000'))), 'invalid_signature'],
      [
        (await evmPayment({ to: '0x3333333333333333333333333333333333333333', accepted: { payTo: '0x3333333333333333333333333333333333333333' } })).header,
        'wrong_pay_to',
      ],
      [(await evmPayment({ accepted: { asset: '0x4444444444444444444444444444444444444444' } })).header, 'wrong_asset'],
      [(await evmPayment({ usd: 4 })).header, 'amount_too_small'],
      [(await evmPayment({ validBefore: now - 10 })).header, 'expired'],
      [(await evmPayment({ accepted: { network: 'eip155:1' } })).header, 'unknown_network'],
      [Buffer.from('not json').toString('base64'), 'invalid_payload'],
    ];
    for (const [header, reason] of cases) {
      const res = await topUp(header);
      expect({ status: res.status, reason: res.body.details?._errors?.[0] }).toEqual({ status: 400, reason });
      expect(res.body).toEqual({ error: expect.any(String), details: expect.any(Object) });
    }
    expect(facilitator.calls.verify).toBe(verifies);
  });

  it('top-up then inference with SIGN-IN-WITH-X: the balance goes down by the charge, and the history shows both', async () => {
    const before = nano((await get(`/x402/balance/${alice.address}`, await signedIn())).body.data.balanceUsd);
    const chat = await post('/chat/completions', await signedIn(), { model: MODEL, messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 8 });
    expect(chat.status).toBe(200);
    let history: Record<string, any> = {};
    for (let i = 0; i < 100; i++) {
      history = (await get(`/x402/transactions/${alice.address}?limit=10`, await signedIn())).body;
      if (history.data.transactions[0]?.type === 'CHARGE') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const [charge, ...rest] = history.data.transactions;
    expect(charge).toMatchObject({ type: 'CHARGE', requestId: chat.headers.get('cf-ray'), modelId: MODEL });
    expect(charge.amount).toBeLessThan(0);
    expect(rest.map((t: { type: string }) => t.type)).toEqual(['TOP_UP', 'TOP_UP']);
    const after = nano(history.data.currentBalance);
    expect(after).toBe(before + nano(charge.amount));
    expect(nano(charge.balanceAfter)).toBe(after);
  });

  it('another account cannot read the wallet: 403 to its ADMIN key, 401 to an INFERENCE key, 403 to another wallet', async () => {
    const other = (await cli.svc('accounts', 'create', '--name', 'x402 outsider')) as { id?: string; accountId?: string };
    const accountId = other.id ?? other.accountId;
    const key = (type: string) =>
      cli.svc('keys', 'create', '--account', String(accountId), '--type', type, '--description', 'outsider') as Promise<{ apiKey: string }>;
    const admin = (await key('ADMIN')).apiKey;
    const inference = (await key('INFERENCE')).apiKey;
    expect((await get(`/x402/balance/${alice.address}`, { authorization: `Bearer ${admin}` })).status).toBe(403);
    expect((await get(`/x402/transactions/${alice.address}`, { authorization: `Bearer ${inference}` })).status).toBe(401);
    const bob = await evmSignIn(EVM_KEYS.bob, PUBLIC_URL);
    expect((await get(`/x402/balance/${alice.address}`, { 'sign-in-with-x': bob })).status).toBe(403);
  });
});
