import net from 'node:net';
import zlib from 'node:zlib';

/** What came back for one raw request. */
export interface RawAnswer {
  /** 0 when the connection closed without a status line. */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** No complete answer within the deadline (the socket was then destroyed). */
  hung: boolean;
  ms: number;
}

export interface Target {
  host: string;
  port: number;
}

export interface SendOptions {
  /** Bound on the whole exchange; past it the answer counts as a hang. */
  deadlineMs: number;
  /** Source address on the loopback (127.0.0.x), to spread connections over client addresses. */
  localAddress?: string;
}

/**
 * Writes `request` (raw bytes: request line, headers, body, however malformed) on a fresh
 * connection and reads until the server closes it or the answer is complete. No HTTP client
 * library is involved, so nothing is normalized or refused on our side.
 */
export function sendRaw(target: Target, request: Buffer | string, options: SendOptions): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.host, port: target.port, localAddress: options.localAddress });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (hung: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(Buffer.concat(chunks)), hung, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(!complete(Buffer.concat(chunks))), options.deadlineMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (complete(Buffer.concat(chunks))) finish(false);
    });
    socket.on('close', () => finish(false));
    // A server that answers before the body is sent (413, 400) may reset the rest of the write.
    socket.on('error', () => finish(false));
    socket.write(request);
  });
}

const HEAD_END = Buffer.from('\r\n\r\n');

function splitHead(raw: Buffer): { head: string; body: Buffer } | null {
  const end = raw.indexOf(HEAD_END);
  return end < 0 ? null : { head: raw.subarray(0, end).toString('latin1'), body: raw.subarray(end + 4) };
}

function headersOf(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** A response is complete at its Content-Length or its last chunk (a 1xx head is skipped). */
function complete(raw: Buffer): boolean {
  const parts = splitHead(raw);
  if (!parts) return false;
  if (/^HTTP\/1\.1 1\d\d/.test(parts.head)) return complete(parts.body);
  const headers = headersOf(parts.head);
  if (headers['content-length'] !== undefined) return parts.body.length >= Number(headers['content-length']);
  if (headers['transfer-encoding']?.includes('chunked'))
    return parts.body.includes(Buffer.from('\r\n0\r\n\r\n')) || parts.body.subarray(0, 5).toString() === '0\r\n\r\n';
  return false;
}

function parseAnswer(raw: Buffer): Omit<RawAnswer, 'hung' | 'ms'> {
  let parts = splitHead(raw);
  while (parts && /^HTTP\/1\.1 1\d\d/.test(parts.head)) parts = splitHead(parts.body);
  const status = parts ? Number(/^HTTP\/1\.[01] (\d{3})/.exec(parts.head)?.[1] ?? 0) : 0;
  if (!parts) return { status, headers: {}, body: Buffer.alloc(0) };
  const headers = headersOf(parts.head);
  const body = headers['transfer-encoding']?.includes('chunked') ? dechunk(parts.body) : parts.body;
  return { status, headers, body: decoded(body, headers['content-encoding']) };
}

/** The body as sent before compression (the gateway compresses when `Accept-Encoding` asks). */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  try {
    if (encoding === 'gzip') return zlib.gunzipSync(body);
    if (encoding === 'br') return zlib.brotliDecompressSync(body);
    if (encoding === 'deflate') return zlib.inflateSync(body);
  } catch {
    // left as is: the shape check then reports a body that is not JSON
  }
  return body;
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString(), 16);
    if (!(size > 0)) break;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** An HTTP/1.1 request as bytes; `Host`, `Connection: close` and `Content-Length` are added unless given. */
export function rawRequest(method: string, path: string, headers: Record<string, string>, body: Buffer | string = ''): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const all: Record<string, string> = { host: 'gateway', connection: 'close', ...headers };
  if (!Object.keys(all).some((h) => h.toLowerCase() === 'content-length' || h.toLowerCase() === 'transfer-encoding'))
    all['content-length'] = String(bytes.length);
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}
