import http from 'node:http';
import { connect, Socket } from 'node:net';
import { Gateway, RateLimitStack, startRateLimitStack, TestCaller } from './support/rate-limit-stack';

/**
 * Request bodies in flight (issue 28, point 6), against a real gateway process at its default
 * limits (BODY_LIMIT_BYTES and BODY_BUDGET_BYTES 40 MiB): a body over the limit is a 413 that the
 * client reads, with or without Content-Length; bodies the budget cannot take are 503 with
 * retry-after before they are buffered; small calls still get through. No answer is a reset.
 */
const MB = 1_000_000;
const LIMIT = 40 * 1024 * 1024;

let stack: RateLimitStack;
let gateway: Gateway;
let caller: TestCaller;

beforeAll(async () => {
  stack = await startRateLimitStack();
  gateway = await stack.startGateway('gateway-body-budget', { RATE_LIMITS_ENABLED: 'false', ABUSE_PROTECTION_ENABLED: 'false' });
  caller = await stack.newCaller('body budget test');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

/** A chat body of exactly `bytes` bytes (one long user message). */
function chatBody(bytes: number): Buffer {
  const head = Buffer.from('{"model":"rl-text","messages":[{"role":"user","content":"');
  const tail = Buffer.from('"}]}');
  const body = Buffer.alloc(bytes, 'a');
  head.copy(body, 0);
  tail.copy(body, bytes - tail.length);
  return body;
}

interface Outcome {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  body?: { error?: unknown; details?: unknown };
  /** A socket error before any answer arrived (a reset). */
  error?: string;
}

/**
 * POSTs `body` with Content-Length or chunked. `untilAnswered`: stops sending once the answer
 * arrives (most clients); otherwise sends every byte whatever the server said.
 */
function post(pathname: string, body: Buffer, options: { chunked?: boolean; untilAnswered?: boolean } = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${caller.inference.secret}` };
    if (!options.chunked) headers['content-length'] = String(body.length);
    const req = http.request(`${gateway.api}${pathname}`, { method: 'POST', headers, agent: false });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: JSON.parse(text) as Outcome['body'] }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!answered) resolve({ error: err.code ?? err.message });
    });
    let offset = 0;
    const pump = (): void => {
      while (offset < body.length && !(options.untilAnswered !== false && answered)) {
        const chunk = body.subarray(offset, offset + 256 * 1024);
        offset += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

/** Bytes the gateway's body budget holds, from its /metrics. */
async function heldBytes(): Promise<number> {
  const text = await (await fetch(gateway.api.replace(/\/api\/v1$/, '/metrics'))).text();
  return Number(/^svc_gateway_request_body_bytes_held (\d+)/m.exec(text)?.[1]);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

/** A client that declares a `bytes` body and sends only its headers and first byte, holding its share of the budget until closed. */
async function holdBudget(bytes: number): Promise<Socket> {
  const before = await heldBytes();
  const { port } = new URL(gateway.api);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${caller.inference.secret}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n{`,
  );
  await until(async () => (await heldBytes()) >= before + bytes);
  return socket;
}

/** Sends `head` on a raw connection and resolves with what arrives until `complete` says it is enough. */
function exchange(head: string, complete: (text: string) => boolean, then?: (socket: Socket, text: string) => void): Promise<string> {
  const { port } = new URL(gateway.api);
  const socket = connect(Number(port), '127.0.0.1');
  return new Promise((resolve, reject) => {
    let text = '';
    let continued = false;
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (then && !continued && text.includes('\r\n\r\n')) {
        continued = true;
        then(socket, text);
      }
      if (complete(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.write(head);
  });
}

const expectingHead = (bytes: number) =>
  `POST /api/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${caller.inference.secret}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${bytes}\r\nExpect: 100-continue\r\n\r\n`;

function expectBudgetRefusal(answer: Outcome): void {
  expect(answer.status).toBe(503);
  expect(answer.body).toEqual({ error: 'The gateway is receiving too many large request bodies at once. Retry the request shortly.' });
  expect(answer.headers?.['retry-after']).toBe('2');
  expect(answer.headers?.['retry-after-ms']).toBe('2000');
  expect(answer.headers?.['cf-ray']).toMatch(/^[0-9a-f]{16}$/);
}

const tooLarge = { error: `Request body is too large (at most ${LIMIT} bytes).` };

describe('a body over BODY_LIMIT_BYTES', () => {
  const over = chatBody(50 * MB);

  it('gets a 413 in the error shape with Content-Length, before the gateway reads it', async () => {
    const answer = await post('/chat/completions', over);
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual(tooLarge);
    expect(answer.headers?.['cf-ray']).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gets a 413 without Content-Length (chunked), counted as it arrives', async () => {
    const answer = await post('/chat/completions', over, { chunked: true });
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual(tooLarge);
  });

  it('is refused without inviting the body when the client asks first (Expect: 100-continue); an admitted one is invited', async () => {
    const refused = await exchange(expectingHead(50 * MB), (text) => text.endsWith('}'));
    expect(refused).toMatch(/^HTTP\/1\.1 413 /);
    expect(refused).not.toContain('100 Continue');
    expect(refused).toContain(JSON.stringify(tooLarge));

    const small = JSON.stringify({ model: 'rl-text', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
    const admitted = await exchange(
      expectingHead(Buffer.byteLength(small)),
      (text) => text.includes('HTTP/1.1 200 ') && (text.endsWith('}') || text.endsWith('\r\n0\r\n\r\n')),
      (socket, text) => {
        expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
        socket.write(small);
      },
    );
    expect(admitted).toContain('"chat.completion"');
  });

  it('gets its 413 even when the client sends every byte anyway: the rest is discarded, not reset', async () => {
    for (const chunked of [false, true]) {
      const answer = await post('/chat/completions', over, { chunked, untilAnswered: false });
      expect(answer.error).toBeUndefined();
      expect(answer.status).toBe(413);
    }
    await until(async () => (await heldBytes()) === 0);
  });
});

describe('the body budget (BODY_BUDGET_BYTES)', () => {
  const large = chatBody(39 * MB);
  const smallChat = () =>
    post('/chat/completions', Buffer.from(JSON.stringify({ model: 'rl-text', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 })));

  it('refuses large bodies it cannot take with 503 and retry-after, serves small calls meanwhile, and admits again once freed', async () => {
    const holder = await holdBudget(39 * MB);
    try {
      const refused = await Promise.all([
        ...Array.from({ length: 4 }, () => post('/chat/completions', large)),
        post('/chat/completions', chatBody(4 * MB), { chunked: true }),
      ]);
      refused.forEach(expectBudgetRefusal);
      const small = await smallChat();
      expect(small.status).toBe(200);
    } finally {
      holder.destroy();
    }
    await until(async () => (await heldBytes()) === 0);
    // Admitted again: the chat route's own rule refuses a 39 MB message, as it always did.
    const admitted = await post('/chat/completions', large);
    expect(admitted.status).toBe(400);
    expect(String(admitted.body?.error)).toMatch(/messages\.0\.content: is 38086 KiB as JSON/);
  });

  it('answers a burst of 12 concurrent 39 MB bodies with 503s or the route’s own error, none reset, and holds nothing after', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => post('/chat/completions', large)));
    for (const answer of answers) {
      expect(answer.error).toBeUndefined();
      if (answer.status === 503) expectBudgetRefusal(answer);
      else expect(answer.status).toBe(400);
    }
    expect(answers.filter((a) => a.status === 400).length).toBeGreaterThanOrEqual(1);
    await until(async () => (await heldBytes()) === 0);
    expect((await smallChat()).status).toBe(200);
  });
});
