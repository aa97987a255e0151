import { chargesByRequest, RequestCharge } from './ledger';
import { Sample } from './traffic';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Every served request charged once (one reservation, a positive net), every failed one not at
 * all, no hold left open; `mayBeUnbilled`: requests whose hold a crash may have lost (never
 * overcharged). Settlements are batched and retried, so it waits up to 30 s for them.
 */
export async function checkCharges(
  billingDatabaseUrl: string,
  samples: Sample[],
  mayBeUnbilled = new Set<string>(),
): Promise<{ wrong: string[]; charges: Map<string, RequestCharge> }> {
  const answered = samples.filter((s) => s.requestId);
  const served = answered.filter((s) => s.status === 200 && s.complete);
  let charges = await chargesByRequest(billingDatabaseUrl);
  const pending = () =>
    served.some((s) => !mayBeUnbilled.has(s.requestId as string) && !charges.has(s.requestId as string)) || [...charges.values()].some((c) => c.held > 0);
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && pending(); await sleep(500)) charges = await chargesByRequest(billingDatabaseUrl);
  await sleep(2_500); // the settlement grace (1 s) and a sweep
  charges = await chargesByRequest(billingDatabaseUrl);
  const wrong: string[] = [];
  for (const s of answered) {
    const charge = charges.get(s.requestId as string);
    const net = charge?.netNano ?? 0n;
    if (charge && charge.held > 0) wrong.push(`${s.requestId}: still held`);
    const lostHold = !charge && mayBeUnbilled.has(s.requestId as string);
    if (s.status === 200 && s.complete && !lostHold && (charge?.reservations !== 1 || net <= 0n))
      wrong.push(`${s.requestId}: served, charged ${net} over ${charge?.reservations ?? 0} reservations`);
    if (s.status !== 200 && net !== 0n) wrong.push(`${s.requestId}: answered ${s.status}, charged ${net}`);
  }
  return { wrong, charges };
}

/** What `checkCharges` found wrong: empty when every request was charged what its client got. */
export const wronglyCharged = async (billingDatabaseUrl: string, samples: Sample[], mayBeUnbilled?: Set<string>): Promise<string[]> =>
  (await checkCharges(billingDatabaseUrl, samples, mayBeUnbilled)).wrong;
