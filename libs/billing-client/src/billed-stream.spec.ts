import { NatsConnection } from 'nats';
import { createLogger } from '@svc/logging';
import { RpcClient, StreamPublisher } from '@svc/messaging';
import { openBilledStream } from './billed-stream';
import { BillingSettler } from './billing-settler';

/** A connection that accepts the publisher's control subscription and records what is published. */
function fakeNats() {
  const published: string[] = [];
  const nc = {
    subscribe: () => ({ unsubscribe: () => undefined }),
    publish: (subject: string) => void published.push(subject),
  } as unknown as NatsConnection;
  return { nc, published };
}

const settings = { STREAM_HEARTBEAT_MS: 1_000, STREAM_ACK_TIMEOUT_MS: 1_000 };
const request = { caller: { requestId: 'req' }, billing: { reservationId: 'r1' }, stream: { inbox: '_INBOX.test', window: 8 } };

function settler() {
  const settled: Array<[string, string]> = [];
  const billing = new BillingSettler({} as RpcClient, createLogger('billing-client-test', 'silent'));
  jest.spyOn(billing, 'settle').mockImplementation((b, _requestId, outcome) => void settled.push([b?.reservationId ?? '', outcome]));
  return { billing, settled };
}

describe('openBilledStream', () => {
  it('releases the hold and throws when validation fails, before any stream opens', () => {
    const { billing, settled } = settler();
    const { nc, published } = fakeNats();
    const produce = jest.fn();
    expect(() =>
      openBilledStream(
        billing,
        nc,
        settings,
        request,
        () => {
          throw new Error('unknown model');
        },
        produce,
      ),
    ).toThrow('unknown model');
    expect(settled).toEqual([['r1', 'failed']]);
    expect(produce).not.toHaveBeenCalled();
    expect(published).toEqual([]);
  });

  it('answers the open request at once and produces in the background with what validation returned', async () => {
    const { billing, settled } = settler();
    const { nc, published } = fakeNats();
    let produced: { engine: string; publisher: StreamPublisher } | undefined;
    const reply = openBilledStream(
      billing,
      nc,
      settings,
      request,
      () => 'engine',
      async (engine, publisher) => {
        produced = { engine, publisher };
        publisher.end({ usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, finishReason: 'stop' });
      },
    );
    expect(reply.heartbeatMs).toBe(1_000);
    expect(reply.control).toMatch(/^_INBOX\.\w+\.\w+$/); // a subject of the connection's InboxMux
    await Promise.resolve();
    expect(produced?.engine).toBe('engine');
    expect(published).toEqual(['_INBOX.test']);
    expect(settled).toEqual([]);
  });
});
