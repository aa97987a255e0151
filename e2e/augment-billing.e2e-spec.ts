import { connect, NatsConnection } from 'nats';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * The `/augment/*` tools are billed and rate-limited like inference (issue 18): the platform
 * started as a user starts it, with the shipped catalog (text-parser 0.001 USD per call) and a
 * platform-wide limit of 3 text-parser calls a minute. A call costs exactly its catalog price, a
 * key without credit gets 402, a key over the limit 429.
 */
const PARSER_RPM = 3;

describe('augment tools are priced and limited', () => {
  let platform: RunningPlatform;
  let nc: NatsConnection;

  beforeAll(async () => {
    platform = await startPlatform({
      env: { RATE_LIMIT_GLOBAL_JSON: JSON.stringify({ 'svc-augment-text-parser': { rpm: PARSER_RPM } }), ABUSE_PROTECTION_ENABLED: 'false' },
    });
    nc = await connect({ servers: platform.env.NATS_URL });
  }, 120_000);
  afterAll(async () => {
    await nc?.close();
    await platform?.stop();
  });

  const parse = (key: string) => {
    const form = new FormData();
    form.append('file', new Blob(['Harbour notes: the lamp is lit at dusk.\n'], { type: 'text/plain' }), 'notes.txt');
    return fetch(`${platform.apiUrl}/augment/text-parser`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  };
  const balance = async () =>
    (await fetch(`${platform.apiUrl}/billing/balance`, { headers: { authorization: `Bearer ${platform.adminKey}` } })).headers.get('x-svc-balance-usd');

  it('charges a text-parser call exactly its catalog price', async () => {
    expect(await balance()).toBe('100.00');
    const res = await parse(platform.adminKey);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toContain('Harbour notes');
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe(String(PARSER_RPM));
    let after: string | null = '';
    for (const deadline = Date.now() + 8_000; Date.now() < deadline && after !== '99.999'; await new Promise((r) => setTimeout(r, 100)))
      after = await balance();
    expect(after).toBe('99.999');
  });

  it('answers 402 to a key whose account has no credit, and charges nothing', async () => {
    const rpc = new RpcClient(nc, 10_000);
    const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: 'augment without credit' });
    const { apiKey } = await rpc.send(KEYS.CREATE, {
      accountId,
      apiKeyType: 'INFERENCE',
      description: 'no credit',
      expiresAt: null,
      consumptionLimits: { usd: null, diem: null },
      limitPeriod: 'LIFETIME',
      modelPrivacy: 'ALL',
    });
    const res = await parse(apiKey);
    expect(res.status).toBe(402);
  });

  it('answers 429 with retry-after once the limit is reached', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PARSER_RPM; i++) statuses.push((await parse(platform.adminKey)).status);
    // The first test's call counted; the refused one above was released.
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await parse(platform.adminKey);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
