import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { formatAmount, parseAmount } from '@svc/pricing';
import { freePort, operatorCli, RunningPlatform, startPlatform } from '@svc/testing';
import { EVM_KEYS, evmSignIn } from '@svc/testing/wallet';
import { privateKeyToAccount } from 'viem/accounts';

/** 1 credit = 1 micro-USD here, so a standard EVM call (20 credits) costs 0.00002 USD. */
const PER_CREDIT_USD = '0.000001';
const NODE_TIMEOUT_MS = 1_000;
const PUBLIC_URL = 'https://api.rpc-e2e.test';
/** Credits per account per rolling 24 hours. */
const CAP = 5_000;

interface RpcItem {
  method: string;
  id: unknown;
  params?: unknown;
}

/**
 * A small JSON-RPC node: eth_chainId, eth_blockNumber, eth_getBalance answer results, eth_call a
 * JSON-RPC error, eth_getBlockByNumber after 600 ms. `/503` answers HTTP 503, `/slow` answers after
 * the proxy's timeout, `/redirect` a 307 to the good node (never followed). It counts what it served.
 */
class JsonRpcNode {
  calls = 0;
  private server?: Server;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    this.calls++;
    if (req.url === '/503') return void res.writeHead(503, { 'content-type': 'text/plain' }).end(`node ${this.url} overloaded`);
    if (req.url === '/redirect') return void res.writeHead(307, { location: `${this.url}/` }).end();
    if (req.url === '/slow') await new Promise((resolve) => setTimeout(resolve, NODE_TIMEOUT_MS * 3));
    const body = JSON.parse(raw) as RpcItem | RpcItem[];
    const answers = await Promise.all((Array.isArray(body) ? body : [body]).map((item) => this.answer(item)));
    if (!res.writableEnded && !res.destroyed)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
  }

  private async answer({ method, id }: RpcItem): Promise<object> {
    switch (method) {
      case 'eth_chainId':
        return { jsonrpc: '2.0', id, result: '0x1' };
      case 'eth_blockNumber':
        return { jsonrpc: '2.0', id, result: '0x1234' };
      case 'eth_getBalance':
        return { jsonrpc: '2.0', id, result: '0xde0b6b3a7640000' };
      case 'eth_getBlockByNumber':
        await new Promise((resolve) => setTimeout(resolve, 600));
        return { jsonrpc: '2.0', id, result: { number: '0x1234' } };
      default:
        return { jsonrpc: '2.0', id, error: { code: -32602, message: 'invalid params' } };
    }
  }
}

/**
 * The billed JSON-RPC proxy on the whole platform (issue 20): a local node stands in for the chain.
 * Single and batch calls are relayed and cost exactly credits x price; refusals (method, network,
 * shape) and node failures (5xx, timeout, down, redirect) charge nothing and never name the node;
 * an Idempotency-Key replays the first answer without calling the node or billing again.
 */
describe('crypto JSON-RPC proxy', () => {
  let platform: RunningPlatform;
  const node = new JsonRpcNode();
  let deadUrl = '';

  const rpc = async (network: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${platform.apiUrl}/crypto/rpc/${network}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as any };
  };
  const balance = async () =>
    (await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${platform.adminKey}` } })).headers.get('x-svc-balance-usd')!;
  /** Waits for the settled balance (the wallet service settles in the background). */
  const settledTo = async (expected: string) => {
    let seen = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      seen = await balance();
      if (seen === expected) break;
    }
    return seen;
  };
  const minus = (usd: string, credits: number) => formatAmount(parseAmount(usd) - BigInt(credits) * parseAmount(PER_CREDIT_USD));
  /** Nothing is charged: the balance stays put a while after the request. */
  const unchanged = async (before: string) => {
    await new Promise((r) => setTimeout(r, 300));
    expect(await balance()).toBe(before);
  };
  const noNodeAddress = (text: string) => {
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toMatch(/https?:/);
  };

  beforeAll(async () => {
    const url = await node.start();
    deadUrl = `http://127.0.0.1:${await freePort()}`;
    platform = await startPlatform({
      env: {
        CRYPTO_RPC_NETWORKS: JSON.stringify({
          'ethereum-mainnet': { url, chainId: 1 },
          'base-mainnet': { urls: [deadUrl, url], chainId: 8453 },
          'broken-mainnet': { url: `${url}/503` },
          'slow-mainnet': { url: `${url}/slow` },
          'dead-mainnet': { url: deadUrl },
          'moved-mainnet': { url: `${url}/redirect` },
        }),
        CRYPTO_RPC_PRICE_PER_CREDIT_USD: PER_CREDIT_USD,
        SIWX_PUBLIC_URL: PUBLIC_URL,
        CRYPTO_RPC_TIMEOUT_MS: String(NODE_TIMEOUT_MS),
        // the reference's 10,000,000 credits per 24 hours, scaled down to what a test spends
        CRYPTO_RPC_CREDITS_PER_DAY: String(CAP),
        // Every request reserved exactly, so the balance moves by each charge as it settles.
        BILLING_LEASES: 'false',
        ABUSE_PROTECTION_ENABLED: 'false',
        RATE_LIMITS_ENABLED: 'false',
      },
      timeoutMs: 150_000,
    });
  }, 200_000);

  afterAll(async () => {
    await platform?.stop();
    await node.close();
  });

  it('lists the configured networks, sorted, without a key', async () => {
    const res = await fetch(`${platform.apiUrl}/crypto/rpc/networks`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      networks: ['base-mainnet', 'broken-mainnet', 'dead-mainnet', 'ethereum-mainnet', 'moved-mainnet', 'slow-mainnet'],
    });
  });

  it('relays a single call and charges its credits x price, with the credit and cost headers', async () => {
    const before = await balance();
    const res = await rpc('ethereum-mainnet', { jsonrpc: '2.0', method: 'eth_chainId', params: [], id: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' });
    expect(res.headers.get('x-svc-rpc-credits')).toBe('20');
    expect(res.headers.get('x-svc-rpc-cost-usd')).toBe('0.00002000');
    expect(res.headers.get('x-svc-balance-usd')).toBe(before);
    expect(res.headers.get('cf-ray')).toBeTruthy();
    expect(await settledTo(minus(before, 20))).toBe(minus(before, 20));
  });

  it('relays a batch, billing an item answered with an error at 5 credits', async () => {
    const before = await balance();
    const res = await rpc('ethereum-mainnet', [
      { jsonrpc: '2.0', method: 'eth_chainId', id: 1 },
      { jsonrpc: '2.0', method: 'eth_blockNumber', id: 2 },
      { jsonrpc: '2.0', method: 'eth_getBalance', params: ['0x0000000000000000000000000000000000000000', 'latest'], id: 'three' },
      { method: 'eth_call', params: [{}, 'latest'], id: 4 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x1' },
      { jsonrpc: '2.0', id: 2, result: '0x1234' },
      { jsonrpc: '2.0', id: 'three', result: '0xde0b6b3a7640000' },
      { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'invalid params' } },
    ]);
    expect(res.headers.get('x-svc-rpc-credits')).toBe('65');
    expect(res.headers.get('x-svc-rpc-cost-usd')).toBe('0.00006500');
    expect(await settledTo(minus(before, 65))).toBe(minus(before, 65));
  });

  it('tries the next node when the first is down', async () => {
    const before = await balance();
    const res = await rpc('base-mainnet', { jsonrpc: '2.0', method: 'eth_blockNumber', id: 7 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, result: '0x1234' });
    expect(await settledTo(minus(before, 20))).toBe(minus(before, 20));
  });

  it('refuses a method off the allow-list, a whole batch naming the item, before any node call and without charge', async () => {
    const before = await balance();
    const calls = node.calls;
    const single = await rpc('ethereum-mainnet', { jsonrpc: '2.0', method: 'eth_newFilter', params: [{}], id: 1 });
    expect(single.status).toBe(400);
    expect(single.body).toEqual({
      error: expect.stringMatching(/eth_newFilter.*not supported.*eth_getLogs/),
      details: { _errors: [], method: { _errors: [expect.any(String)] } },
    });
    const batch = await rpc('ethereum-mainnet', [
      { jsonrpc: '2.0', method: 'eth_chainId', id: 1 },
      { jsonrpc: '2.0', method: 'admin_peers', id: 2 },
    ]);
    expect(batch.status).toBe(400);
    expect(batch.body.details[1].method._errors[0]).toMatch(/"admin_peers" is not supported/);
    expect(node.calls).toBe(calls);
    await unchanged(before);
  });

  it('refuses an unknown network and malformed JSON-RPC with a 400 naming the field, charging nothing', async () => {
    const before = await balance();
    const calls = node.calls;
    const unknown = await rpc('dogecoin-mainnet', { jsonrpc: '2.0', method: 'eth_chainId', id: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: expect.stringMatching(/Unsupported network "dogecoin-mainnet"/),
      details: { _errors: [], network: expect.any(Object) },
    });
    const cases: Array<[unknown, string]> = [
      [{ jsonrpc: '2.0', id: 1 }, 'method'],
      [{ jsonrpc: '1.0', method: 'eth_chainId', id: 1 }, 'jsonrpc'],
      [{ jsonrpc: '2.0', method: 'eth_chainId' }, 'id'],
      [{ jsonrpc: '2.0', method: 'eth_chainId', id: 1, params: 'x' }, 'params'],
      [
        [
          { jsonrpc: '2.0', method: 'eth_chainId', id: 1 },
          { jsonrpc: '2.0', method: 42, id: 2 },
        ],
        '1',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await rpc('ethereum-mainnet', body);
      expect([res.status, Object.keys(res.body.details ?? {})]).toEqual([400, expect.arrayContaining([field])]);
    }
    const tooMany = await rpc(
      'ethereum-mainnet',
      Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', method: 'eth_chainId', id: i })),
    );
    expect([tooMany.status, tooMany.body.error]).toEqual([400, expect.stringMatching(/at most 100/)]);
    const empty = await rpc('ethereum-mainnet', []);
    expect([empty.status, empty.body.error]).toEqual([400, expect.stringMatching(/at least one/)]);
    const bad = await rpc('Not_A_Slug', { jsonrpc: '2.0', method: 'eth_chainId', id: 1 });
    expect([bad.status, Object.keys(bad.body.details)]).toEqual([400, ['_errors', 'network']]);
    expect((await rpc('ethereum-mainnet', '{"jsonrpc":')).status).toBe(400);
    expect(node.calls).toBe(calls);
    await unchanged(before);
  });

  it.each([
    ['a node answering 503', 'broken-mainnet'],
    ['a node slower than CRYPTO_RPC_TIMEOUT_MS', 'slow-mainnet'],
    ['a node that is down', 'dead-mainnet'],
    ['a node answering a redirect (never followed)', 'moved-mainnet'],
  ])('answers 500 for %s, naming no node and charging nothing', async (_, network) => {
    const before = await balance();
    const started = Date.now();
    const res = await rpc(network, { jsonrpc: '2.0', method: 'eth_chainId', id: 1 });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: expect.stringMatching(new RegExp(`The ${network} node .*nothing was charged`)) });
    noNodeAddress(res.text);
    expect(Date.now() - started).toBeLessThan(NODE_TIMEOUT_MS + 2_000);
    await unchanged(before);
  });

  it('replays an Idempotency-Key answer without calling the node or charging again; another body with the key is a 400', async () => {
    const before = await balance();
    const calls = node.calls;
    const body = { jsonrpc: '2.0', method: 'eth_getBalance', params: ['0x0000000000000000000000000000000000000001', 'latest'], id: 5 };
    const headers = { 'idempotency-key': `replay-${Date.now()}` };
    const first = await rpc('ethereum-mainnet', body, headers);
    const second = await rpc('ethereum-mainnet', body, headers);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toEqual(first.body);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-svc-rpc-credits')).toBe('20');
    expect(second.headers.get('x-svc-rpc-cost-usd')).toBe('0.00002000');
    expect(node.calls).toBe(calls + 1);

    const other = await rpc('ethereum-mainnet', { ...body, id: 6 }, headers);
    expect(other.status).toBe(400);
    expect(other.body.details._errors).toEqual(['idempotency_key_reused']);
    const otherNetwork = await rpc('base-mainnet', body, headers);
    expect(otherNetwork.status).toBe(400);
    expect((await rpc('ethereum-mainnet', body, { 'idempotency-key': 'not valid!' })).status).toBe(400);
    expect(await settledTo(minus(before, 20))).toBe(minus(before, 20));
    await unchanged(minus(before, 20));
  });

  it('runs and bills two identical concurrent requests with one Idempotency-Key once', async () => {
    const before = await balance();
    const calls = node.calls;
    const body = { jsonrpc: '2.0', method: 'eth_getBlockByNumber', params: ['latest', false], id: 9 };
    const headers = { 'idempotency-key': `race-${Date.now()}` };
    const [a, b] = await Promise.all([rpc('ethereum-mainnet', body, headers), rpc('ethereum-mainnet', body, headers)]);
    // The second finds the first running: a 409 to retry, never a second run.
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((a.status === 409 ? a : b).body.details._errors).toEqual(['idempotency_key_in_progress']);
    const retry = await rpc('ethereum-mainnet', body, headers);
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(retry.body).toEqual({ jsonrpc: '2.0', id: 9, result: { number: '0x1234' } });
    expect(node.calls).toBe(calls + 1);
    expect(await settledTo(minus(before, 20))).toBe(minus(before, 20));
    await unchanged(minus(before, 20));
  });

  it('a failed request frees its Idempotency-Key: the retry runs', async () => {
    const headers = { 'idempotency-key': `failed-${Date.now()}` };
    const body = { jsonrpc: '2.0', method: 'eth_chainId', id: 1 };
    expect((await rpc('broken-mainnet', body, headers)).status).toBe(500);
    const retry = await rpc('broken-mainnet', body, headers);
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([500, null]);
  });

  it('answers 402 to a key whose account has no credit, before any node call', async () => {
    const cli = operatorCli(platform.env);
    const account = await cli.svc('accounts', 'create', '--name', `rpc without credit ${Date.now()}`);
    const key = await cli.svc('keys', 'create', '--account', account.id ?? account.accountId, '--type', 'INFERENCE', '--description', 'rpc e2e');
    const calls = node.calls;
    const res = await rpc('ethereum-mainnet', { jsonrpc: '2.0', method: 'eth_chainId', id: 1 }, { authorization: `Bearer ${key.apiKey}` });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/Insufficient balance/);
    expect(node.calls).toBe(calls);
    const noKey = await fetch(`${platform.apiUrl}/crypto/rpc/ethereum-mainnet`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(noKey.status).toBe(401);
  });

  it('serves a wallet signed in with SIGN-IN-WITH-X, X-Balance-Remaining going down by the exact charge', async () => {
    const cli = operatorCli(platform.env);
    const wallet = privateKeyToAccount(EVM_KEYS.bob);
    const signed = async () => ({ authorization: '', 'sign-in-with-x': await evmSignIn(EVM_KEYS.bob, PUBLIC_URL) });
    const body = { jsonrpc: '2.0', method: 'eth_blockNumber', id: 1 };
    const broke = await rpc('ethereum-mainnet', body, await signed());
    expect([broke.status, broke.headers.get('x-balance-remaining')]).toEqual([402, '0.00']);
    // x402's 402 for a wallet (docs/wallet.md, "Out of credit"): the hold is the call's 20 credits.
    expect(broke.body).toMatchObject({
      code: 'PAYMENT_REQUIRED',
      currentBalanceUsd: 0,
      minimumBalanceUsd: Number(formatAmount(20n * parseAmount(PER_CREDIT_USD))),
    });

    const { data } = (await cli.svc('accounts', 'list')) as { data: Array<{ id: string; name: string }> };
    const account = data.find((a) => a.name === `wallet evm ${wallet.address}`)!;
    await cli.billing('credit', '--account', account.id, '--usd', '1', '--reason', 'rpc e2e');
    const paid = await rpc('ethereum-mainnet', body, await signed());
    expect([paid.status, paid.body.result, paid.headers.get('x-balance-remaining'), paid.headers.get('x-svc-rpc-credits')]).toEqual([
      200,
      '0x1234',
      '1.00',
      '20',
    ]);
    let after = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline && after !== minus('1', 20); await new Promise((r) => setTimeout(r, 100))) {
      const res = await fetch(`${platform.apiUrl}/x402/balance/${wallet.address}`, { headers: await signed() });
      after = res.headers.get('x-balance-remaining') ?? '';
    }
    expect(after).toBe(minus('1', 20));
  });

  it('caps an account at CRYPTO_RPC_CREDITS_PER_DAY credits per rolling 24 hours, exactly under concurrency: 429 naming the cap, no node call, no charge', async () => {
    const cli = operatorCli(platform.env);
    const account = await cli.svc('accounts', 'create', '--name', `rpc credit cap ${Date.now()}`);
    const accountId: string = account.id ?? account.accountId;
    const key = await cli.svc('keys', 'create', '--account', accountId, '--type', 'INFERENCE', '--description', 'rpc cap e2e');
    const admin = await cli.svc('keys', 'create', '--account', accountId, '--type', 'ADMIN', '--description', 'rpc cap e2e balance');
    await cli.billing('credit', '--account', accountId, '--usd', '1', '--reason', 'rpc cap e2e');
    const auth = { authorization: `Bearer ${key.apiKey}` };
    const batch = (size: number) => Array.from({ length: size }, (_, id) => ({ jsonrpc: '2.0', method: 'eth_chainId', id }));
    const calls = node.calls;
    // ten batches of 2,000 credits at once against a cap of 5,000: exactly two are relayed
    const raced = await Promise.all(Array.from({ length: 10 }, () => rpc('ethereum-mainnet', batch(100), auth)));
    expect(raced.filter((r) => r.status === 200)).toHaveLength(2);
    const refused = raced.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.status)).toEqual(Array(8).fill(429));
    for (const r of refused) {
      expect(r.body.error).toMatch(
        /^Credit cap reached: 5,000 credits per rolling 24 hours on the JSON-RPC proxy for your account \(4,000 used, this request needs 2000\)/,
      );
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(24 * 3600);
      noNodeAddress(r.text);
    }
    expect(node.calls).toBe(calls + 2);
    const charged = (credits: number) => formatAmount(parseAmount('1') - BigInt(credits) * parseAmount(PER_CREDIT_USD));
    const balanceOf = async () =>
      (await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${admin.apiKey}` } })).headers.get('x-svc-balance-usd')!;
    for (const deadline = Date.now() + 8_000; Date.now() < deadline && (await balanceOf()) !== charged(4_000);) await new Promise((r) => setTimeout(r, 100));
    expect(await balanceOf()).toBe(charged(4_000));
    // what is left fits; one credit more does not
    expect((await rpc('ethereum-mainnet', batch(50), auth)).status).toBe(200);
    const over = await rpc('ethereum-mainnet', { jsonrpc: '2.0', method: 'eth_chainId', id: 1 }, auth);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatch(/5,000 used, this request needs 20\)/);
    expect(node.calls).toBe(calls + 3);
    // another account is not affected
    expect((await rpc('ethereum-mainnet', { jsonrpc: '2.0', method: 'eth_chainId', id: 1 })).status).toBe(200);
  });

  it('never logs a node address', () => {
    expect(platform.output()).not.toContain(node.url);
    expect(platform.output()).not.toContain(deadUrl);
  });
});
