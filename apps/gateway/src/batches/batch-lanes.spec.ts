import { runInLanes } from './batch-lanes';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Work that records what ran and the most items running at once. */
function tracked() {
  const ran: number[] = [];
  let running = 0;
  let peak = 0;
  const work = async (item: number) => {
    running++;
    peak = Math.max(peak, running);
    await tick();
    await tick();
    ran.push(item);
    running--;
  };
  return { ran, work, peak: () => peak };
}

describe('runInLanes', () => {
  it('runs every item exactly once, never more than the lanes at once, and starts them in order', async () => {
    const t = tracked();
    const started: number[] = [];
    const items = Array.from({ length: 23 }, (_, i) => i);
    const stop = await runInLanes(
      items,
      4,
      async () => undefined,
      async (i) => {
        started.push(i);
        await t.work(i);
      },
    );
    expect(stop).toBeUndefined();
    expect(started).toEqual(items);
    expect([...t.ran].sort((a, b) => a - b)).toEqual(items);
    expect(t.peak()).toBe(4);
  });

  it('with one lane runs one after another; with more lanes than items, one lane per item', async () => {
    const one = tracked();
    await runInLanes([1, 2, 3], 1, async () => undefined, one.work);
    expect(one.ran).toEqual([1, 2, 3]);
    expect(one.peak()).toBe(1);
    const wide = tracked();
    await runInLanes([1, 2], 16, async () => undefined, wide.work);
    expect(wide.peak()).toBe(2);
    expect(await runInLanes([], 4, async () => 'never', wide.work)).toBeUndefined();
  });

  it('once stopped starts nothing new, lets the running items finish, and says why', async () => {
    const t = tracked();
    let asked = 0;
    let finishedBeforeReturn = 0;
    const stop = await runInLanes(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async () => (++asked > 5 ? ('cancelled' as const) : undefined),
      async (i) => {
        await t.work(i);
        finishedBeforeReturn++;
      },
    );
    expect(stop).toBe('cancelled');
    expect(t.ran).toHaveLength(5);
    expect(finishedBeforeReturn).toBe(5);
  });

  it('a failing item stops new starts, waits for the running ones, then throws the first error', async () => {
    const t = tracked();
    const run = runInLanes(
      Array.from({ length: 10 }, (_, i) => i),
      3,
      async () => undefined,
      async (i) => {
        if (i === 1) throw new Error('redis down');
        await t.work(i);
      },
    );
    await expect(run).rejects.toThrow('redis down');
    expect(t.ran.length).toBeLessThan(9);
    const settled = t.ran.length;
    await tick();
    await tick();
    expect(t.ran).toHaveLength(settled);
  });
});
