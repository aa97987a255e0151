// The least a service of this platform's shape can do (bench/count/floor.ts): take a request from
// NATS, send it to the upstream on a kept-alive undici pool (as the chat service does), and reply
// with the upstream's answer.
import { connect } from 'nats';
import { Pool } from 'undici';

async function main(): Promise<void> {
  const upstream = new URL(String(process.env.UPSTREAM_URL));
  const pool = new Pool(upstream.origin, { connections: 8 });
  const nc = await connect({ servers: process.env.NATS_URL });
  nc.subscribe('floor.complete', {
    queue: 'floor',
    callback: (_err, msg) => {
      pool
        .request({
          path: `${upstream.pathname}/chat/completions`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(msg.data),
        })
        .then((res) => res.body.arrayBuffer())
        .then(
          (body) => msg.respond(new Uint8Array(body)),
          () => msg.respond(new Uint8Array()),
        );
    },
  });
  await nc.flush();
  process.stdout.write('ready\n');
}

void main();
