import { DomainError, ErrorCode } from '@svc/errors';
import { SlotQueue } from './slot-queue';

describe('SlotQueue', () => {
  it('grants up to `slots` at once and then serves waiters first in, first out', async () => {
    const q = new SlotQueue(2, 10);
    const r1 = await q.acquire();
    await q.acquire();
    const order: number[] = [];
    const w3 = q.acquire().then((release) => (order.push(3), release));
    const w4 = q.acquire().then((release) => (order.push(4), release));
    expect(q.stats()).toEqual({ running: 2, queued: 2 });
    r1();
    r1(); // a second call must not free a second slot
    const r3 = await w3;
    expect(q.stats()).toEqual({ running: 2, queued: 1 });
    r3();
    await w4;
    expect(order).toEqual([3, 4]);
  });

  it('rejects at once with a busy error when the queue is full', async () => {
    const q = new SlotQueue(1, 1);
    await q.acquire();
    void q.acquire();
    const err = await q.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/busy/) });
  });

  it('drops a waiter whose signal aborts, and refuses already-aborted signals', async () => {
    const q = new SlotQueue(1, 5);
    const release = await q.acquire();
    const controller = new AbortController();
    const waiting = q.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(q.stats().queued).toBe(0);
    await expect(q.acquire(controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    release();
    expect(q.stats().running).toBe(0);
  });

  it('rejectAll fails every waiter', async () => {
    const q = new SlotQueue(1, 5);
    await q.acquire();
    const waiting = [q.acquire(), q.acquire()];
    q.rejectAll(new Error('closed'));
    await expect(Promise.all(waiting)).rejects.toThrow('closed');
    expect(q.stats().queued).toBe(0);
  });
});
