import { NatsConnection } from 'nats';
import { PrivateNats, startPrivateNats } from '@svc/testing';
import { connectNats } from '../../src';

/** connectNats writes once per event-loop turn (coalesceWrites): nothing may be lost or reordered by that. */
describe('connectNats write coalescing', () => {
  let nats: PrivateNats;
  let receiver: NatsConnection;

  beforeAll(async () => {
    nats = await startPrivateNats();
    receiver = await connectNats(nats.url, 'receiver');
  });
  afterAll(async () => {
    await receiver.close();
    await nats.stop();
  });

  const collect = async (subject: string, count: number): Promise<{ got: string[]; done: Promise<void> }> => {
    const got: string[] = [];
    let finish = () => undefined as void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    receiver.subscribe(subject, { max: count, callback: (_err, msg) => got.push(msg.string()) && got.length === count && finish() });
    await receiver.flush();
    return { got, done };
  };

  it('delivers in order what one turn published, and what later turns published', async () => {
    const { got, done } = await collect('coalesce.order', 6);
    const sender = await connectNats(nats.url, 'sender');
    for (const n of ['1', '2', '3']) sender.publish('coalesce.order', n);
    await new Promise((resolve) => setImmediate(resolve));
    for (const n of ['4', '5', '6']) sender.publish('coalesce.order', n);
    await done;
    expect(got).toEqual(['1', '2', '3', '4', '5', '6']);
    await sender.close();
  });

  it('writes what is pending when the connection is closed in the same turn', async () => {
    const { got, done } = await collect('coalesce.close', 2);
    const sender = await connectNats(nats.url, 'sender');
    sender.publish('coalesce.close', 'a');
    sender.publish('coalesce.close', 'b');
    await sender.close();
    await done;
    expect(got).toEqual(['a', 'b']);
  });
});
