import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { REPO_ROOT } from '@svc/config';
import { formatAmount } from '@svc/pricing';
import { jsonHttp, operatorCli, RunningPlatform, startFakeOpenAiUpstream, startPlatform } from '@svc/testing';
import {
  BASE_PAY_TO,
  BASE_USDC,
  EVM_KEYS,
  evmSignIn,
  FacilitatorDouble,
  SOLANA_FEE_PAYER,
  SOLANA_NETWORK,
  SOLANA_PAY_TO,
  SOLANA_USDC,
  solanaSignIn,
  solanaWallet,
} from '@svc/testing/wallet';

const PUBLIC_URL = 'https://api.x402-402-e2e.test';
const MODEL = 'money-upstream';
const CHAT_PATH = '/api/v1/chat/completions';

/**
 * A wallet signed in with SIGN-IN-WITH-X whose credit cannot cover a request gets x402's own 402
 * (the reference's X402InferencePaymentRequired): its balance, what the request needed, how to top
 * up (the same accepts as POST /x402/top-up, also in PAYMENT-REQUIRED) and a fresh sign-in
 * challenge. A key without credit keeps the ordinary 402.
 */
describe('the 402 of a wallet short of credit', () => {
  let platform: RunningPlatform;
  let closeUpstream: () => Promise<void>;
  let cli: ReturnType<typeof operatorCli>;
  const facilitator = new FacilitatorDouble();
  const bob = privateKeyToAccount(EVM_KEYS.bob);

  const { post } = jsonHttp(() => platform.apiUrl);
  const chatBody = { model: MODEL, messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 8 };
  const chat = (headers: Record<string, string>) => post('/chat/completions', headers, chatBody);
  const asBob = async () => ({ 'sign-in-with-x': await evmSignIn(EVM_KEYS.bob, PUBLIC_URL) });
  const nano = (usd: number): bigint => BigInt(Math.round(usd * 1e9));
  const decode = (value: string | null) => JSON.parse(Buffer.from(value ?? '', 'base64').toString('utf8'));

  async function accountOf(name: string): Promise<string> {
    const { data } = (await cli.svc('accounts', 'list')) as { data: Array<{ id: string; name: string }> };
    const account = data.find((a) => a.name === name);
    if (!account) throw new Error(`no account ${name}`);
    return account.id;
  }

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
        X402_SOLANA_PAY_TO: SOLANA_PAY_TO,
        X402_SOLANA_FEE_PAYER: SOLANA_FEE_PAYER,
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

  it("answers the reference's structured 402 with the balance, the top-up options and a fresh challenge", async () => {
    const started = Date.now();
    const res = await chat(await asBob());
    expect(res.status).toBe(402);
    expect(res.body).toEqual({
      error: 'Payment required',
      code: 'PAYMENT_REQUIRED',
      reason: 'insufficient_balance',
      message: expect.stringMatching(/^Insufficient x402 balance: this request needs [0-9.]+ USD and the wallet has 0\.00 USD\.$/),
      currentBalanceUsd: 0,
      minimumBalanceUsd: expect.any(Number),
      description: expect.any(String),
      suggestedTopUpUsd: 10,
      minimumTopUpUsd: 5,
      supportedTokens: ['USDC'],
      supportedChains: ['base', 'solana'],
      topUpInstructions: {
        step1: expect.stringContaining('/api/v1/x402/top-up'),
        step2: expect.any(String),
        step3: expect.stringContaining('PAYMENT-SIGNATURE'),
        receiverWallet: BASE_PAY_TO,
        tokenAddress: BASE_USDC,
        tokenDecimals: 6,
        network: 'eip155:8453',
        minimumAmountUsd: 5,
      },
      siwxChallenge: {
        info: {
          domain: new URL(PUBLIC_URL).host,
          uri: `${PUBLIC_URL}${CHAT_PATH}`,
          version: '1',
          nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
          issuedAt: expect.any(String),
          expirationTime: expect.any(String),
          statement: expect.any(String),
        },
        supportedChains: [
          { chainId: 'eip155:8453', type: 'eip191' },
          { chainId: SOLANA_NETWORK, type: 'ed25519' },
        ],
      },
    });
    expect(res.body.minimumBalanceUsd).toBeGreaterThan(0);
    const { issuedAt, expirationTime } = res.body.siwxChallenge.info;
    expect(Date.parse(issuedAt)).toBeGreaterThanOrEqual(started - 1000);
    expect(Date.parse(expirationTime) - Date.parse(issuedAt)).toBe(600_000);
    expect(res.headers.get('x-balance-remaining')).toBe('0.00');
    expect(res.headers.get('cf-ray')).toBeTruthy();

    // PAYMENT-REQUIRED: the same accepts as the top-up's own 402, for this resource.
    const topUp = await post('/x402/top-up', {}, {});
    expect(topUp.status).toBe(402);
    expect(topUp.body.accepts.map((a: { network: string }) => a.network)).toEqual(['eip155:8453', SOLANA_NETWORK]);
    expect(decode(res.headers.get('payment-required'))).toEqual({
      x402Version: 2,
      resource: { url: `${PUBLIC_URL}${CHAT_PATH}`, description: res.body.description, mimeType: 'application/json' },
      accepts: topUp.body.accepts,
    });
    expect(topUp.body.accepts[1]).toMatchObject({ asset: SOLANA_USDC, payTo: SOLANA_PAY_TO, extra: { feePayer: SOLANA_FEE_PAYER } });

    // Every 402 has its own challenge.
    const again = await chat(await asBob());
    expect(again.status).toBe(402);
    expect(again.body.siwxChallenge.info.nonce).not.toBe(res.body.siwxChallenge.info.nonce);
    expect(again.body.minimumBalanceUsd).toBe(res.body.minimumBalanceUsd);
  });

  it('reports a balance too small for the request, and the minimum it names is exactly enough', async () => {
    const first = await chat(await asBob());
    expect(first.status).toBe(402);
    const minimum = nano(first.body.minimumBalanceUsd);
    const accountId = await accountOf(`wallet evm ${bob.address}`);

    const part = minimum / 2n;
    await cli.billing('credit', '--account', accountId, '--usd', formatAmount(part), '--reason', 'x402 402 e2e');
    const short = await chat(await asBob());
    expect(short.status).toBe(402);
    expect(nano(short.body.currentBalanceUsd)).toBe(part);
    expect(nano(short.body.minimumBalanceUsd)).toBe(minimum);
    expect(short.headers.get('x-balance-remaining')).toBe(formatAmount(part));

    await cli.billing('credit', '--account', accountId, '--usd', formatAmount(minimum - part), '--reason', 'x402 402 e2e');
    const ok = await chat(await asBob());
    expect(ok.status).toBe(200);
  });

  it('answers a Solana wallet the same way, with a challenge for its path', async () => {
    const res = await post(
      '/responses',
      { 'sign-in-with-x': solanaSignIn(solanaWallet(51), PUBLIC_URL) },
      { model: MODEL, input: 'Say something.', max_output_tokens: 8 },
    );
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'PAYMENT_REQUIRED', currentBalanceUsd: 0, siwxChallenge: { info: { uri: `${PUBLIC_URL}/api/v1/responses` } } });
    expect(decode(res.headers.get('payment-required')).resource.url).toBe(`${PUBLIC_URL}/api/v1/responses`);
  });

  it('keeps the ordinary 402 for an API key without credit', async () => {
    const account = (await cli.svc('accounts', 'create', '--name', `x402 402 key ${Date.now()}`)) as { id?: string; accountId?: string };
    const key = (await cli.svc(
      'keys',
      'create',
      '--account',
      String(account.id ?? account.accountId),
      '--type',
      'INFERENCE',
      '--description',
      'no credit',
    )) as {
      apiKey: string;
    };
    const res = await chat({ authorization: `Bearer ${key.apiKey}` });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: expect.stringMatching(/Insufficient balance/) });
    expect(res.headers.get('payment-required')).toBeNull();
    expect(res.headers.get('x-balance-remaining')).toBeNull();
  });
});
