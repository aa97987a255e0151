import net from 'node:net';
import { HEADER } from '@svc/headers';
import { problemOf } from './support/answer-checks';
import { LIMITS, ResiliencePlatform } from './support/platform';
import { RawAnswer, rawRequest, sendRaw } from './support/raw-http';

export interface SlowClientsContext {
  platform: ResiliencePlatform;
  send(request: Buffer, deadlineMs?: number): Promise<RawAnswer>;
}

/** Node sweeps for expired requests every fifth of the headers timeout; on a busy machine, a little more. */
const SLACK_MS = 2_000;

interface Held {
  socket: net.Socket;
  /** Resolves when the server closes the connection: after how long, and what it sent. */
  closed: Promise<{ ms: number; data: string }>;
}

/** A connection that writes `first` and then keeps quiet; `closed` tells when the server gave up on it. */
function hold(target: { host: string; port: number }, first: string, localAddress?: string): Held {
  const started = Date.now();
  const socket = net.connect({ ...target, localAddress });
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<{ ms: number; data: string }>((resolve) => socket.on('close', () => resolve({ ms: Date.now() - started, data })));
  if (first) socket.write(first);
  return { socket, closed };
}

const statusOf = (data: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
const bodyOf = (data: string) => data.slice(data.indexOf('\r\n\r\n') + 4);

/**
 * Slowloris and half-open clients against the suite's short limits (support/platform.ts): each
 * connection is cut with a 408 in the error shape once its limit passes, an idle keep-alive is
 * closed, one address cannot hold more than its share of sockets, and none of it cuts a long
 * response.
 */
export function slowClientsSuite(context: () => SlowClientsContext, options: { quick: boolean }): void {
  describe('slow and half-open clients', () => {
    const target = () => context().platform.target;
    const key = () => context().platform.key;

    it('cuts a client that trickles its headers, or sends nothing, with a 408 after REQUEST_HEADERS_TIMEOUT_MS', async () => {
      const trickle = hold(target(), 'GET /api/v1/models HTTP/1.1\r\nhost: gateway\r\n');
      const timer = setInterval(() => trickle.socket.writable && trickle.socket.write('x-slow: 1\r\n'), 200);
      const silent = hold(target(), '');
      const [trickled, nothing] = await Promise.all([trickle.closed, silent.closed]);
      clearInterval(timer);
      for (const { ms, data } of [trickled, nothing]) {
        expect(statusOf(data)).toBe(408);
        expect(ms).toBeGreaterThanOrEqual(LIMITS.REQUEST_HEADERS_TIMEOUT_MS * 0.8);
        expect(ms).toBeLessThan(LIMITS.REQUEST_HEADERS_TIMEOUT_MS + SLACK_MS);
      }
      expect(JSON.parse(bodyOf(trickled.data))).toEqual({ error: expect.stringMatching(/^The request was not received in time/) });
      expect(trickled.data.toLowerCase()).toContain(`${HEADER.requestId}: `);
    });

    it('cuts a body shorter than its Content-Length, or a chunked body that never ends, with a 408 after REQUEST_RECEIVE_TIMEOUT_MS', async () => {
      const head = (framing: string) =>
        `POST /api/v1/chat/completions HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer ${key()}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`;
      const short = hold(target(), `${head('content-length: 1000')}{"model":`);
      const chunked = hold(target(), `${head('transfer-encoding: chunked')}9\r\n{"model":\r\n`);
      for (const { ms, data } of await Promise.all([short.closed, chunked.closed])) {
        expect(statusOf(data)).toBe(408);
        expect(ms).toBeLessThan(LIMITS.REQUEST_RECEIVE_TIMEOUT_MS + SLACK_MS);
        expect(Object.keys(JSON.parse(bodyOf(data)))).toEqual(['error']);
      }
    });

    it('closes an idle keep-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
      const idle = hold(target(), 'GET /healthz HTTP/1.1\r\nhost: gateway\r\n\r\n');
      const { ms, data } = await idle.closed;
      expect(statusOf(data)).toBe(200);
      expect(ms).toBeLessThan(LIMITS.KEEP_ALIVE_TIMEOUT_MS + SLACK_MS);
    });

    it('lets a streamed response run past every receive limit', async () => {
      const input = 'The lamp stood on the table and lit the room. '.repeat(80);
      const request = rawRequest(
        'POST',
        '/api/v1/audio/speech',
        { authorization: `Bearer ${context().platform.fundedKey}`, 'content-type': 'application/json' },
        JSON.stringify({ model: 'tts-1', voice: 'slt', input, response_format: 'pcm', streaming: true }),
      );
      const answer = await sendRaw(target(), request, { deadlineMs: 120_000 });
      expect(answer).toMatchObject({ status: 200, hung: false });
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      expect(answer.body.length).toBeGreaterThan(100_000);
      // The point of the test: the response outlived the limits on receiving a request.
      expect(answer.ms).toBeGreaterThan(LIMITS.REQUEST_RECEIVE_TIMEOUT_MS);
    });

    it('closes connections of one address past MAX_CONNECTIONS_PER_IP at once; other addresses are served', async () => {
      const extra = 6;
      const opened = Array.from({ length: LIMITS.MAX_CONNECTIONS_PER_IP + extra }, () => hold(target(), '', '127.0.0.77'));
      const closedAtOnce = await Promise.all(
        opened.map((h) => Promise.race([h.closed.then(() => 1), new Promise<number>((r) => setTimeout(() => r(0), 500))])),
      );
      expect(closedAtOnce.reduce((a, b) => a + b, 0)).toBe(extra);
      const other = await sendRaw(target(), rawRequest('GET', '/healthz', {}), { deadlineMs: 5_000, localAddress: '127.0.0.78' });
      expect(other.status).toBe(200);
      for (const h of opened) h.socket.destroy();
      await Promise.all(opened.map((h) => h.closed));
      // The server counts a connection gone when its own side sees the close, a moment after ours.
      let again = 0;
      for (let i = 0; i < 20 && again !== 200; i++) {
        again = (await sendRaw(target(), rawRequest('GET', '/healthz', {}), { deadlineMs: 5_000, localAddress: '127.0.0.77' })).status;
        if (again !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(again).toBe(200);
    });

    const slow = options.quick ? it.skip : it;
    slow('[slow] 1,000 half-sent bodies from 20 addresses are all cut within the limit, and other clients are served meanwhile', async () => {
      const head = `POST /api/v1/embeddings HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer ${key()}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`;
      const held = Array.from({ length: 1_000 }, (_, i) => hold(target(), head, `127.0.1.${10 + (i % 20)}`));
      const served = await sendRaw(target(), rawRequest('GET', '/api/v1/models', { authorization: `Bearer ${key()}` }), { deadlineMs: 5_000 });
      expect(problemOf(served)).toBeNull();
      expect(served.status).toBe(200);
      const closed = await Promise.all(held.map((h) => h.closed));
      const statuses = new Set(closed.map((c) => statusOf(c.data)));
      expect(statuses).toEqual(new Set([408]));
      expect(Math.max(...closed.map((c) => c.ms))).toBeLessThan(LIMITS.REQUEST_RECEIVE_TIMEOUT_MS + 2 * SLACK_MS);
    });
  });
}
