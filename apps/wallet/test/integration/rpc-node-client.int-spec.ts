import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { freePort } from '@svc/testing';
import { NodeClient, NodeFailure } from '../../src/rpc/node-client';
import { RpcNetwork } from '../../src/rpc/rpc.config';

const TIMEOUT_MS = 500;

/**
 * The node client against local sockets: failover in order, redirects never followed, a size cap,
 * one deadline for every attempt, and failures that carry a reason but never the node's address.
 */
describe('NodeClient', () => {
  let server: Server;
  let base = '';
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += String(c)));
      req.on('end', () => {
        seen.push(req.url ?? '');
        const reply = (status: number, body: string, headers: Record<string, string> = {}) =>
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
        if (req.url === '/503') return reply(503, 'busy');
        if (req.url === '/429') return reply(429, '{}');
        if (req.url === '/redirect') return reply(307, '', { location: `${base}/ok` });
        if (req.url === '/html') return reply(200, '<html>');
        if (req.url === '/big') return reply(200, JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(4096) }));
        if (req.url === '/slow') return void setTimeout(() => reply(200, raw), TIMEOUT_MS * 3);
        reply(200, JSON.stringify({ jsonrpc: '2.0', id: 1, result: JSON.parse(raw).method }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = new NodeClient(TIMEOUT_MS, 1024);
  afterAll(() => client.close());
  const network = (...paths: string[]): RpcNetwork => ({
    slug: 'test-net',
    urls: paths.map((p) => (p.startsWith('http') ? p : `${base}${p}`)),
    family: 'evm',
    baseCredits: 20,
  });
  const isAnswer = (body: unknown) => typeof body === 'object' && body !== null && 'result' in body;
  const post = (net: RpcNetwork, attempts: string[] = []) =>
    client.post(net, JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId', id: 1 }), isAnswer, (node, f) => attempts.push(`${node}:${f.reason}`));
  const failure = async (promise: Promise<unknown>): Promise<NodeFailure> => {
    try {
      await promise;
    } catch (err) {
      if (err instanceof NodeFailure) return err;
      throw err;
    }
    throw new Error('expected a NodeFailure');
  };

  it('relays the first good answer, trying the next node past a down, 5xx, 429, redirect or non-JSON-RPC one', async () => {
    const attempts: string[] = [];
    const dead = `http://127.0.0.1:${await freePort()}`;
    expect(await post(network(dead, '/503', '/429', '/redirect', '/html', '/ok'), attempts)).toEqual({ jsonrpc: '2.0', id: 1, result: 'eth_chainId' });
    expect(attempts).toEqual(['1:unreachable', '2:status', '3:status', '4:redirect', '5:not_json_rpc']);
    // The redirect was not followed: /ok was reached once, as the sixth node.
    expect(seen.filter((p) => p === '/ok')).toHaveLength(1);
  });

  it('fails with the last reason, naming no address', async () => {
    const err = await failure(post(network('/503', '/redirect')));
    expect([err.reason, err.detail]).toEqual(['redirect', 'HTTP 307']);
    const dead = await failure(post(network(`http://127.0.0.1:${await freePort()}`)));
    expect(dead.reason).toBe('unreachable');
    for (const e of [err, dead]) expect(`${e.message} ${e.detail}`).not.toMatch(/127\.0\.0\.1|http/);
  });

  it('stops at the deadline, shared by every attempt', async () => {
    const started = Date.now();
    const err = await failure(post(network('/slow', '/ok')));
    expect(err.reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 400);
  });

  it('refuses an answer over the size cap without trying another node', async () => {
    const attempts: string[] = [];
    const err = await failure(post(network('/big', '/ok'), attempts));
    expect(err.reason).toBe('too_large');
    expect(attempts).toEqual(['1:too_large']);
  });
});
