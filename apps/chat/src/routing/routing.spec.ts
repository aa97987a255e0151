import { backoffDelay } from './backoff';
import { CircuitBreaker } from './circuit-breaker';
import { pickEndpoint } from './endpoint-picker';

describe('backoff', () => {
  it('doubles per attempt up to the cap, with jitter between half and all of it', () => {
    const opts = { baseMs: 100, maxMs: 1_000 };
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(n, opts, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect([0, 1, 2].map((n) => backoffDelay(n, opts, () => 0))).toEqual([50, 100, 200]);
  });
});

describe('circuit breaker', () => {
  it('opens after N consecutive failures, lets one trial through after the cooldown, closes on success', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 2, cooldownMs: 100 }, () => now);
    breaker.failure();
    breaker.success();
    breaker.failure();
    expect(breaker.state).toBe('closed');
    breaker.failure();
    expect([breaker.state, breaker.tryAcquire()]).toEqual(['open', false]);
    now = 100;
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
    breaker.failure();
    expect(breaker.state).toBe('open');
    now = 250;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.success();
    expect(breaker.state).toBe('closed');
  });
});

describe('endpoint picker', () => {
  const ep = (id: string, outstanding = 0, available = true, healthy = true) => ({ id, outstanding, available, healthy });

  it('picks the least loaded, skipping open circuits, tried and unhealthy endpoints when it can', () => {
    expect(pickEndpoint([ep('a', 3), ep('b', 1), ep('c', 2)], undefined)?.id).toBe('b');
    expect(pickEndpoint([ep('a', 3), ep('b', 1, false)], undefined)?.id).toBe('a');
    expect(pickEndpoint([ep('a', 3), ep('b', 1)], undefined, new Set(['b']))?.id).toBe('a');
    expect(pickEndpoint([ep('a', 3), ep('b', 1, true, false)], undefined)?.id).toBe('a');
    expect(pickEndpoint([ep('a', 3, true, false)], undefined)?.id).toBe('a');
    expect(pickEndpoint([ep('a', 0, false)], undefined)).toBeUndefined();
  });

  it('maps a cache key to the same endpoint, and moves only the keys of a removed one', () => {
    const all = [ep('a'), ep('b'), ep('c')];
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
    const before = keys.map((k) => pickEndpoint(all, k)!.id);
    expect(keys.map((k) => pickEndpoint(all, k)!.id)).toEqual(before);
    expect(new Set(before).size).toBe(3);
    const after = keys.map((k) => pickEndpoint([all[0], all[2]], k)!.id);
    keys.forEach((_, i) => {
      if (before[i] !== 'b') expect(after[i]).toBe(before[i]);
    });
  });
});
