import { connect } from 'node:net';
import Fastify from 'fastify';
import { Logger } from '@svc/logging';
import { refuseWhileClosing } from '../../src/http/closing';

describe('a gateway shutting down', () => {
  it('answers a request that arrives during the drain 503 in the one error shape, with retry-after, and closes', async () => {
    const fastify = Fastify({ return503OnClosing: false });
    refuseWhileClosing(fastify, { error: () => undefined } as unknown as Logger);
    let release = () => undefined as void;
    fastify.get('/slow', () => new Promise((resolve) => (release = () => resolve({ ok: true }))));
    fastify.get('/fast', () => ({ ok: true }));
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastify.server.address() as { port: number };

    // A keep-alive connection with a request in flight while the drain starts; the next request on it comes after.
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    const ended = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const closed = fastify.close();
    await new Promise((r) => setTimeout(r, 50));
    release();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closed;

    const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toMatch(/\r\nretry-after: 1\r\n/);
    expect(second).toMatch(/\r\nretry-after-ms: 1000\r\n/);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(second).toContain('{"error":"This gateway is shutting down. Retry the request."}');
  });
});
