import { headers, NatsConnection } from 'nats';
import { StreamOpenRequest } from '@svc/contracts';
import { ErrorCode } from '@svc/errors';
import { NATS_HEADER } from '@svc/headers';
import { connectNats, Frame, StreamPublisher, StreamReader } from '../../src';
import { PrivateNats, startPrivateNats } from '@svc/testing';

const text = (frame: Frame) => (frame.kind === 'error' ? frame.error.message : Buffer.from(frame.body).toString());

describe('token stream protocol over NATS', () => {
  let nats: PrivateNats;
  let producer: NatsConnection;
  let consumer: NatsConnection;

  beforeAll(async () => {
    nats = await startPrivateNats();
    producer = await connectNats(nats.url, 'producer');
    consumer = await connectNats(nats.url, 'consumer');
  });
  afterAll(async () => {
    await producer.close();
    await consumer.close();
    await nats.stop();
  });

  function pair(window = 4, opts: { heartbeatMs?: number; ackTimeoutMs?: number; idleTimeoutMs?: number; batch?: boolean } = {}) {
    const reader = new StreamReader(consumer, { window, idleTimeoutMs: opts.idleTimeoutMs ?? 2_000 });
    const open: StreamOpenRequest = { inbox: reader.inbox, window, batch: opts.batch };
    const publisher = new StreamPublisher(producer, open, { heartbeatMs: opts.heartbeatMs ?? 100, ackTimeoutMs: opts.ackTimeoutMs ?? 2_000 });
    reader.attach(publisher.reply());
    return { reader, publisher };
  }

  it('delivers chunks in order, then the end frame', async () => {
    const { reader, publisher } = pair(8);
    await consumer.flush();
    const produced = (async () => {
      for (let i = 0; i < 50; i++) await publisher.chunk(`c${i}`);
      publisher.end({ usage: { prompt_tokens: 1, completion_tokens: 50, total_tokens: 51 }, finishReason: 'stop' });
    })();
    const got: string[] = [];
    for (let frame = await reader.next(); ; frame = await reader.next()) {
      if (frame.kind !== 'chunk') {
        expect(frame.kind).toBe('end');
        expect(JSON.parse(text(frame)).usage.completion_tokens).toBe(50);
        break;
      }
      got.push(text(frame));
    }
    await produced;
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => `c${i}`));
  });

  it('take() hands over the frames that have already arrived, in order, without waiting, and acknowledges them', async () => {
    const { reader, publisher } = pair(8);
    await consumer.flush();
    expect(reader.take()).toBeUndefined();
    for (let i = 0; i < 8; i++) await publisher.chunk(`c${i}`);
    await producer.flush();
    const first = await reader.next();
    await new Promise((r) => setTimeout(r, 50));
    const rest: string[] = [];
    for (let frame = reader.take(); frame; frame = reader.take()) rest.push(text(frame));
    expect([text(first), ...rest]).toEqual(Array.from({ length: 8 }, (_, i) => `c${i}`));
    expect(reader.take()).toBeUndefined();
    // What take() handed over counts as read: the producer gets credit for a window more.
    const more = (async () => {
      for (let i = 8; i < 17; i++) await publisher.chunk(`c${i}`);
    })();
    const later: string[] = [];
    while (later.length < 9) later.push(text(await reader.next()));
    await more;
    expect(later).toEqual(Array.from({ length: 9 }, (_, i) => `c${i + 8}`));
    publisher.close();
    reader.close();
  });

  it.each([false, true])('holds the producer back when the reader stops pulling (bounded buffer; batches: %s)', async (batch) => {
    // With batches, what a producer ahead of the reader has batched goes out before it waits for credit.
    const { reader, publisher } = pair(4, { batch });
    await consumer.flush();
    let sent = 0;
    const producing = (async () => {
      for (let i = 0; i < 20; i++) {
        await publisher.chunk(`c${i}`);
        sent++;
      }
      publisher.end({ usage: { prompt_tokens: 1, completion_tokens: 20, total_tokens: 21 }, finishReason: 'stop' });
    })();
    await new Promise((r) => setTimeout(r, 300));
    expect(sent).toBeLessThanOrEqual(6);
    const got: string[] = [];
    let frame = await reader.next();
    for (; frame.kind === 'chunk'; frame = await reader.next()) got.push(text(frame));
    await producing;
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
    expect(frame).toMatchObject({ kind: 'end', seq: 20 });
  });

  it('aborts the producer when the reader cancels', async () => {
    const { reader, publisher } = pair(4);
    await consumer.flush();
    await publisher.chunk('first');
    await reader.next();
    reader.cancel();
    await new Promise((r) => setTimeout(r, 200));
    expect(publisher.signal.aborted).toBe(true);
    await expect(publisher.chunk('late')).rejects.toThrow(/cancelled/);
    publisher.close();
  });

  it('reports a dead producer as an error frame after the idle timeout, not a hang', async () => {
    const { reader, publisher } = pair(4, { idleTimeoutMs: 400 });
    await consumer.flush();
    await publisher.chunk('only');
    publisher.close(); // the service "dies": no end frame, no heartbeats
    expect((await reader.next()).kind).toBe('chunk');
    const started = Date.now();
    const frame = await reader.next();
    expect(frame.kind).toBe('error');
    if (frame.kind === 'error') expect(frame.error.code).toBe(ErrorCode.ServiceUnavailable);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('counts idleness from the open reply, so an open that needed a resend still streams', async () => {
    const reader = new StreamReader(consumer, { window: 4, idleTimeoutMs: 300 });
    // The first send went to a replica that died: the reply comes only after a resend, past the idle time.
    await new Promise((r) => setTimeout(r, 400));
    const publisher = new StreamPublisher(producer, { inbox: reader.inbox, window: 4 }, { heartbeatMs: 100, ackTimeoutMs: 2_000 });
    reader.attach(publisher.reply());
    await consumer.flush();
    await publisher.chunk('late but alive');
    const frame = await reader.next();
    expect(frame.kind).toBe('chunk');
    expect(text(frame)).toBe('late but alive');
    publisher.close();
    reader.close();
  });

  it('reports frames lost in transit (a gap in the numbering) as a 503 error frame, never a silent truncation', async () => {
    const reader = new StreamReader(consumer, { window: 4, idleTimeoutMs: 2_000 });
    await consumer.flush();
    const frame = (seq: number) => {
      const h = headers();
      h.set(NATS_HEADER.frame, 'chunk');
      h.set(NATS_HEADER.seq, String(seq));
      producer.publish(reader.inbox, new TextEncoder().encode(`c${seq}`), { headers: h });
    };
    frame(0);
    frame(2); // frame 1 was lost, as when a NATS server of a cluster dies between the two ends
    expect(text(await reader.next())).toBe('c0');
    const gap = await reader.next();
    expect(gap.kind).toBe('error');
    if (gap.kind === 'error') expect(gap.error.code).toBe(ErrorCode.ServiceUnavailable);
  });

  it('keeps a slow but alive producer going with heartbeats', async () => {
    const { reader, publisher } = pair(4, { heartbeatMs: 100, idleTimeoutMs: 400 });
    await consumer.flush();
    setTimeout(
      () =>
        void publisher
          .chunk('after a long think')
          .then(() => publisher.end({ usage: { prompt_tokens: 0, completion_tokens: 1, total_tokens: 1 }, finishReason: 'stop' })),
      1_000,
    );
    const frame = await reader.next();
    expect(frame.kind).toBe('chunk');
    expect((await reader.next()).kind).toBe('end');
  });

  it('aborts the producer when the reader vanishes without cancelling', async () => {
    const { reader, publisher } = pair(2, { ackTimeoutMs: 300 });
    await consumer.flush();
    reader.close(); // e.g. the gateway process died
    await expect(
      (async () => {
        for (let i = 0; i < 10; i++) await publisher.chunk(`c${i}`);
      })(),
    ).rejects.toThrow(/credit/);
    expect(publisher.signal.aborted).toBe(true);
    publisher.close();
  });

  it('wakes a pending read at once when the reader is cancelled', async () => {
    const { reader, publisher } = pair(4, { idleTimeoutMs: 5_000 });
    await consumer.flush();
    const pending = reader.next();
    const started = Date.now();
    setTimeout(() => reader.cancel(), 50);
    expect((await pending).kind).toBe('error');
    expect(Date.now() - started).toBeLessThan(1_000);
    publisher.close();
  });

  it('keeps concurrent streams on one connection apart, and drops what a stream is sent after it closed', async () => {
    const streams = Array.from({ length: 20 }, () => pair(8));
    await consumer.flush();
    await Promise.all(streams.map(({ publisher }, i) => publisher.chunk(`s${i}`)));
    for (const [i, { reader }] of streams.entries()) expect(text(await reader.next())).toBe(`s${i}`);

    const [closed, next] = [streams[0], streams[1]];
    closed.reader.close();
    await closed.publisher.chunk('late'); // the reader is gone: nothing receives it
    await next.publisher.chunk('own');
    await producer.flush();
    expect(text(await next.reader.next())).toBe('own');
    expect(next.reader.take()).toBeUndefined();
    for (const { reader, publisher } of streams) {
      reader.close();
      publisher.close();
    }
  });

  describe('batches (a reader that asked for them)', () => {
    /** Every message the reader's inbox receives, seen by a subscription of its own. */
    function countMessages(inbox: string) {
      const seen: Array<{ frame?: string; seq?: string; count?: string }> = [];
      const sub = consumer.subscribe(inbox, {
        callback: (_err, msg) =>
          seen.push({
            frame: msg.headers?.get(NATS_HEADER.frame),
            seq: msg.headers?.get(NATS_HEADER.seq),
            count: msg.headers?.get(NATS_HEADER.count) || undefined,
          }),
      });
      return { seen, stop: () => sub.unsubscribe() };
    }

    it('sends the chunks produced in one go as one message, which the reader hands out one by one, in order', async () => {
      const { reader, publisher } = pair(64, { batch: true });
      const messages = countMessages(reader.inbox);
      await consumer.flush();
      for (let i = 0; i < 8; i++) await publisher.chunk({ n: i });
      publisher.end({ usage: { prompt_tokens: 1, completion_tokens: 8, total_tokens: 9 }, finishReason: 'stop' });
      const got: Frame[] = [];
      for (let frame = await reader.next(); frame.kind === 'chunk'; frame = await reader.next()) got.push(frame);
      expect(got.map((f) => [f.seq, text(f)])).toEqual(Array.from({ length: 8 }, (_, i) => [i, JSON.stringify({ n: i })]));
      await consumer.flush();
      expect(messages.seen.filter((m) => m.frame !== 'heartbeat')).toEqual([
        { frame: 'chunk', seq: '0', count: '8' },
        { frame: 'end', seq: '8', count: undefined },
      ]);
      messages.stop();
    });

    it('sends a chunk holding a newline alone, keeping the order and the numbering', async () => {
      const { reader, publisher } = pair(64, { batch: true });
      await consumer.flush();
      for (const piece of ['a', 'b', 'two\nlines', 'c']) await publisher.chunk(piece);
      publisher.end({ usage: { prompt_tokens: 1, completion_tokens: 4, total_tokens: 5 }, finishReason: 'stop' });
      const got: string[] = [];
      let frame = await reader.next();
      for (; frame.kind === 'chunk'; frame = await reader.next()) got.push(text(frame));
      expect(got).toEqual(['a', 'b', 'two\nlines', 'c']);
      expect(frame).toMatchObject({ kind: 'end', seq: 4 });
    });

    it('keeps a batch small: large chunks (audio) produced in one go leave in several messages', async () => {
      const { reader, publisher } = pair(64, { batch: true });
      const messages = countMessages(reader.inbox);
      await consumer.flush();
      const pieces = Array.from({ length: 10 }, (_, i) => String(i).repeat(20_000));
      for (const piece of pieces) await publisher.chunk(piece);
      publisher.end({ usage: { prompt_tokens: 1, completion_tokens: 10, total_tokens: 11 }, finishReason: 'stop' });
      const got: string[] = [];
      for (let frame = await reader.next(); frame.kind === 'chunk'; frame = await reader.next()) got.push(text(frame));
      expect(got).toEqual(pieces);
      await consumer.flush();
      // 64 Ki units a batch: three chunks of 20,000 each, then the next batch.
      expect(messages.seen.filter((m) => m.frame === 'chunk').map((m) => m.count)).toEqual(['3', '3', '3', undefined]);
      messages.stop();
    });

    it('refuses a batched message whose chunks do not match its count, as an error frame', async () => {
      const reader = new StreamReader(consumer, { window: 8, idleTimeoutMs: 2_000 });
      const h = headers();
      h.set(NATS_HEADER.frame, 'chunk');
      h.set(NATS_HEADER.seq, '0');
      h.set(NATS_HEADER.count, '3');
      producer.publish(reader.inbox, Buffer.from('a\nb'), { headers: h });
      await producer.flush();
      const frame = await reader.next();
      expect(frame).toMatchObject({ kind: 'error', error: { code: ErrorCode.Internal } });
      reader.close();
    });
  });
});
