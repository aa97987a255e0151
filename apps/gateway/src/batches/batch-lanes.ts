/**
 * Runs `work` on each item, at most `lanes` at once, starting them in order. Before an item starts,
 * `stopReason` is asked: once it names a reason, no item starts any more and the ones running
 * finish. A `work` that throws also stops new starts; the first error is thrown when every lane
 * has finished, so nothing is left running behind the caller. Returns the reason it stopped for,
 * or undefined when every item ran.
 */
export async function runInLanes<T, R>(
  items: readonly T[],
  lanes: number,
  stopReason: () => Promise<R | undefined>,
  work: (item: T) => Promise<void>,
): Promise<R | undefined> {
  let next = 0;
  let stopped: R | undefined;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (stopped === undefined && !failed && next < items.length) {
      // Taken before the await, so two lanes never take the same item; an item taken but stopped before it starts never runs.
      const item = items[next++];
      const reason = await stopReason();
      if (reason !== undefined) {
        stopped ??= reason;
        return;
      }
      if (failed || stopped !== undefined) return;
      try {
        await work(item);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  const error = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (error) throw error.reason;
  return stopped;
}
