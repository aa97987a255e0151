import { serviceMetricsRegistry } from '@svc/messaging';
import { BillingHarness, createBillingHarness, newAccount, text } from './support/billing-harness';

/**
 * The sweeper's backlog as Prometheus gauges (the SvcBillingSweeperBacklog alert reads them): an
 * expired hold that no sweep has finalized shows up, with its age, and goes once swept.
 */
let h: BillingHarness;

beforeAll(async () => {
  h = await createBillingHarness('billing_sweepmetrics');
  await h.start();
});
afterAll(() => h?.stop());

async function gauge(name: string): Promise<number> {
  const metric = serviceMetricsRegistry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  const { values } = await metric.get();
  return values[0]?.value ?? NaN;
}

it('counts expired holds not yet swept and the age of the oldest, and drops to zero after a sweep', async () => {
  expect(await gauge('svc_billing_expired_holds')).toBe(0);
  expect(await gauge('svc_billing_oldest_expired_hold_seconds')).toBe(0);
  const account = newAccount();
  await h.credit(account, '1');
  await h.reserve(account, { worstCase: text(10, 10), ttlMs: 100 });
  await h.reserve(account, { worstCase: text(10, 10) }); // not expired: not backlog
  await new Promise((r) => setTimeout(r, 1_200));

  expect(await gauge('svc_billing_expired_holds')).toBe(1);
  expect(await gauge('svc_billing_oldest_expired_hold_seconds')).toBeGreaterThanOrEqual(1);
  await h.sweep();
  expect(await gauge('svc_billing_expired_holds')).toBe(0);
  expect(await gauge('svc_billing_oldest_expired_hold_seconds')).toBe(0);
});
