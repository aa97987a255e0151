import path from 'node:path';
import { REPO_ROOT } from '@svc/config';
import { parseAmount } from '@svc/pricing';
import { operatorCli, RunningPlatform, startFakeOpenAiUpstream, startPlatform } from '@svc/testing';
import { privateKeyToAccount } from 'viem/accounts';
import { EVM_KEYS, evmSignIn, solanaSignIn, solanaWallet } from '@svc/testing/wallet';

const PUBLIC_URL = 'https://api.wallet-e2e.test';
const MODEL = 'money-upstream';

/**
 * A wallet with no account and no key: its first signed request creates its account, the operator
 * credits it (top-ups are x402's), it runs a chat completion signed with SIGN-IN-WITH-X, and
 * X-Balance-Remaining goes down by exactly what the ledger charged.
 */
describe('Sign-In-With-X on the whole platform', () => {
  let platform: RunningPlatform;
  let closeUpstream: () => Promise<void>;
  let cli: ReturnType<typeof operatorCli>;
  const alice = privateKeyToAccount(EVM_KEYS.alice);

  const call = async (pathname: string, header: string | undefined, body?: unknown) => {
    const res = await fetch(`${platform.apiUrl}${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(header ? { 'sign-in-with-x': header } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  const signed = () => evmSignIn(EVM_KEYS.alice, PUBLIC_URL);
  const chat = async (header: string) =>
    call('/chat/completions', header, { model: MODEL, messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 8 });

  async function accountOf(address: string): Promise<string> {
    const { data } = (await cli.svc('accounts', 'list')) as { data: Array<{ id: string; name: string }> };
    const account = data.find((a) => a.name === `wallet evm ${address}`);
    if (!account) throw new Error(`no account for ${address}`);
    return account.id;
  }

  async function charges(accountId: string): Promise<bigint> {
    const { entries } = (await cli.billing('ledger', '--account', accountId)) as { entries: Array<{ kind: string; amount: string }> };
    return entries.filter((e) => e.kind === 'CHARGE').reduce((sum, e) => sum + parseAmount(e.amount.replace(/^-/, '')), 0n);
  }

  beforeAll(async () => {
    const upstream = await startFakeOpenAiUpstream({ completionTokens: 8, recordLimit: 0 });
    closeUpstream = upstream.close;
    platform = await startPlatform({
      env: {
        SVC_CATALOG_PATH: path.join(REPO_ROOT, 'e2e/fixtures/money-catalog.yaml'),
        E2E_UPSTREAM_URL: upstream.baseUrl,
        SIWX_PUBLIC_URL: PUBLIC_URL,
        LOG_LEVEL: 'warn',
      },
      timeoutMs: 150_000,
    });
    cli = operatorCli(platform.env);
  }, 200_000);

  afterAll(async () => {
    await platform?.stop();
    await closeUpstream?.();
  });

  it('creates the account on first sign-in, charges it like a key, and reports the balance on every answer', async () => {
    // First sign-in: no credit yet, so the chat is refused with 402, and the answer says 0.
    const broke = await chat(await signed());
    expect(broke.status).toBe(402);
    expect(parseAmount(broke.headers.get('x-balance-remaining') ?? 'missing')).toBe(0n);
    // x402's 402 for a wallet; this platform has no facilitator, so it offers no top-up rail.
    expect(broke.body).toMatchObject({ code: 'PAYMENT_REQUIRED', reason: 'insufficient_balance', currentBalanceUsd: 0, supportedChains: [] });
    expect(broke.body.message).toMatch(/not available on this server/);
    expect(broke.headers.get('payment-required')).toBeNull();
    const accountId = await accountOf(alice.address);

    await cli.billing('credit', '--account', accountId, '--usd', '1', '--reason', 'wallet e2e');
    const ok = await chat(await signed());
    expect(ok.status).toBe(200);
    expect(ok.body.choices).toEqual([expect.objectContaining({ message: expect.objectContaining({ role: 'assistant' }) })]);
    const before = parseAmount(ok.headers.get('x-balance-remaining') ?? 'missing');
    expect(before).toBe(parseAmount('1'));

    // The chat service settles after answering: wait for the charge to reach the ledger.
    let charged = 0n;
    for (let i = 0; i < 100 && charged === 0n; i++) {
      charged = await charges(accountId);
      if (charged === 0n) await new Promise((r) => setTimeout(r, 100));
    }
    expect(charged).toBeGreaterThan(0n);
    const after = await call('/api_keys/rate_limits', await signed());
    expect(after.status).toBe(200);
    expect(parseAmount(after.headers.get('x-balance-remaining') ?? 'missing')).toBe(before - charged);
  });

  it('refuses a replayed header, a wrong domain and a forged signature with 401 in the error shape, without a balance', async () => {
    const header = await signed();
    expect((await call('/api_keys/rate_limits', header)).status).toBe(200);
    const replay = await chat(header);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: expect.stringMatching(/nonce has been used/) });
    expect(replay.headers.get('x-balance-remaining')).toBeNull();
    expect(replay.headers.get('cf-ray')).toBeTruthy();
    const wrongDomain = await chat(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL, { domain: 'evil.example' }));
    expect(wrongDomain).toMatchObject({ status: 401, body: { error: expect.stringMatching(/domain "evil.example"/) } });
    const forged = await chat(await evmSignIn(EVM_KEYS.bob, PUBLIC_URL, { headerAddress: alice.address }));
    expect(forged).toMatchObject({ status: 401, body: { error: expect.stringMatching(/another address/) } });
    // A wallet key is an INFERENCE key: account administration stays with ADMIN keys.
    expect((await call('/api_keys', await signed())).status).toBe(401);
  });

  it('gives a wallet an API key for its account over GET then POST /api_keys/generate_web3_key', async () => {
    const issued = await call('/api_keys/generate_web3_key', undefined);
    expect(issued).toMatchObject({ status: 200, body: { success: true, data: { token: expect.any(String) } } });
    const token = (issued.body.data as { token: string }).token;
    const body = { apiKeyType: 'INFERENCE', address: alice.address, token, signature: await alice.signMessage({ message: token }) };
    const created = await call('/api_keys/generate_web3_key', undefined, body);
    expect(created).toMatchObject({ status: 200, body: { success: true, data: { apiKeyType: 'INFERENCE', description: 'Web3 API Key' } } });
    const apiKey = (created.body.data as { apiKey: string }).apiKey;
    const withKey = await fetch(`${platform.apiUrl}/api_keys/rate_limits`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(withKey.status).toBe(200);
    expect((await call('/api_keys/generate_web3_key', undefined, body)).status).toBe(401);
  });

  it('signs a Solana wallet in too (its own account, nothing to spend yet)', async () => {
    const res = await call('/api_keys/rate_limits', solanaSignIn(solanaWallet(33), PUBLIC_URL));
    expect(res.status).toBe(200);
    expect(parseAmount(res.headers.get('x-balance-remaining') ?? 'missing')).toBe(0n);
  });
});
