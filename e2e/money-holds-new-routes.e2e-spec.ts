import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import sharp from 'sharp';
import { RpcClient } from '@svc/messaging';
import { RunningPlatform, startPlatform } from '@svc/testing';
import { accountWithKey } from './support/accounts';
import { settledAvailable } from './support/settled-available';

/**
 * The routes that hold credit since issue 18 (/responses, the priced augment tools, background
 * removal), issue 20 (the JSON-RPC proxy, against a small local node) and the video transcription
 * of a URL (a WAV of Flite speech served by the same local server) go through the same
 * admission and settlement as chat: a key whose LIFETIME limit is
 * worth N = 5 requests serves at most 5 of 40 fired at once, and never spends beyond its limit.
 * The shipped catalog: text-parser 0.001 USD and svc-bg-classical 0.0005 USD a call; /responses
 * runs the embedded default model, whose cost per call is measured first.
 */
const N = 5;
const CONCURRENCY = 40;

describe('a key limit holds on the routes added for issues 18 and 20 and video transcription', () => {
  let platform: RunningPlatform;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let db: Client;
  let png: string;
  let node: Server;
  let nodeUrl = '';
  let wav: Buffer | undefined;

  beforeAll(async () => {
    // A JSON-RPC node that answers every call with a block number.
    node = createServer((req, res) => {
      if (req.url === '/talk.wav') return void res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x10' }));
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    platform = await startPlatform({
      env: {
        RATE_LIMITS_ENABLED: 'false',
        ABUSE_PROTECTION_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        CRYPTO_RPC_NETWORKS: JSON.stringify({ 'test-mainnet': { url: nodeUrl, chainId: 1 } }),
        // the video transcription fetches its file from this machine
        OUTBOUND_ALLOWLIST: '127.0.0.1',
      },
    });
    const speech = await fetch(`${platform.apiUrl}/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'slt', input: 'The lamp is lit at dusk.', response_format: 'wav' }),
    });
    wav = Buffer.from(await speech.arrayBuffer());
    nc = await connect({ servers: platform.env.NATS_URL });
    rpc = new RpcClient(nc, 10_000);
    db = new Client({ connectionString: platform.env.BILLING_DATABASE_URL });
    await db.connect();
    const disc = Buffer.from('<svg width="256" height="256"><rect width="256" height="256" fill="#fff"/><circle cx="128" cy="128" r="64" fill="#c00"/></svg>');
    png = (await sharp(disc).png().toBuffer()).toString('base64');
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await nc?.close();
    await platform?.stop();
    await new Promise((resolve) => node?.close(resolve));
  });

  const call = (route: string, key: string): Promise<Response> => {
    const headers = { authorization: `Bearer ${key}` };
    if (route === '/augment/text-parser') {
      const form = new FormData();
      form.append('file', new Blob(['The lamp is lit at dusk.\n'], { type: 'text/plain' }), 'notes.txt');
      return fetch(`${platform.apiUrl}${route}`, { method: 'POST', headers, body: form });
    }
    if (route === '/crypto/rpc/test-mainnet') {
      const rpcBody = { jsonrpc: '2.0', method: 'eth_blockNumber', params: [], id: 1 };
      return fetch(`${platform.apiUrl}${route}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(rpcBody),
      });
    }
    if (route === '/video/transcriptions')
      return fetch(`${platform.apiUrl}${route}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${nodeUrl}/talk.wav` }),
      });
    const bodies: Record<string, unknown> = {
      '/responses': { model: 'default', input: 'Name a lamp.', max_output_tokens: 16, temperature: 0, seed: 7 },
      '/completions': { model: 'default', prompt: 'Name a lamp.', max_tokens: 16, temperature: 0, seed: 7 },
      '/rerank': {
        model: 'text-embedding-3-small',
        query: 'lamp at dusk',
        documents: ['The lamp is lit at dusk.', 'Bees make honey.', 'A river runs to the sea.'],
      },
    };
    const body = bodies[route] ?? { image: png };
    return fetch(`${platform.apiUrl}${route}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  };

  /** A key whose LIFETIME USD limit is `limitNano`, on an account holding 1 USD. */
  const keyWithLimit = (limitNano: bigint) => accountWithKey(rpc, db, 10n ** 9n, limitNano);

  it.each(['/responses', '/completions', '/rerank', '/augment/text-parser', '/image/background-remove', '/crypto/rpc/test-mainnet', '/video/transcriptions'])(
    `%s: a key limit worth ${N} requests serves at most ${N} of ${CONCURRENCY} at once, within the limit`,
    async (route) => {
      // What one call costs: measured on a key of its own with room for it.
      const probe = await keyWithLimit(10n ** 9n);
      const one = await call(route, probe.key);
      expect({ status: one.status, body: one.status === 200 ? '' : await one.text() }).toEqual({ status: 200, body: '' });
      await one.arrayBuffer().catch(() => undefined);
      const unit = 10n ** 9n - (await settledAvailable(db, probe.account));
      expect(unit).toBeGreaterThan(0n);

      const limit = unit * BigInt(N) + unit / 2n;
      const { account, key } = await keyWithLimit(limit);
      const statuses: Record<number, number> = {};
      const unexpected: string[] = [];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          const res = await call(route, key);
          const text = await res.text();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status !== 200 && res.status !== 402) unexpected.push(`${res.status} ${text.slice(0, 300)}`);
        }),
      );
      const spent = 10n ** 9n - (await settledAvailable(db, account));
      expect(unexpected).toEqual([]);
      expect(statuses[200] ?? 0).toBeGreaterThan(0);
      expect(statuses[200] ?? 0).toBeLessThanOrEqual(N);
      expect(spent).toBeLessThanOrEqual(limit);
      expect(spent).toBe(unit * BigInt(statuses[200] ?? 0));
    },
  );
});
