// The least a gateway of this platform's shape can do (bench/count/floor.ts): read an HTTP request,
// send its body over NATS to a service, and write the service's answer back. No auth, limits,
// billing, validation or logging.
import http from 'node:http';
import { connect } from 'nats';

async function main(): Promise<void> {
  const nc = await connect({ servers: process.env.NATS_URL });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      nc.request('floor.complete', Buffer.concat(chunks), { timeout: 30_000 }).then(
        (reply) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(reply.data);
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
}

void main();
