import { RunningPlatform, startPlatform } from '@svc/testing';
import { chargesByRequest, RequestCharge } from './support/ledger';
import { chatRequest } from './support/chat-request';
import { killService, servicePids } from './support/service-processes';

const quick = process.env.RESILIENCE_QUICK === '1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A chat replica that answered and then died before billing took the settlement (docs/billing.md,
 * "The settlement journal"): billing is SIGKILLed so the settlement's attempts fail until its
 * restart, the request is served under the gateway's credit lease, and the chat process is SIGKILLed
 * while it retries. The
 * replica the supervisor starts in its place sends what the dead one owed: the request is charged,
 * exactly once. Without the journal that request goes unbilled.
 */
(quick ? describe.skip : describe)('settlement journal', () => {
  let platform: RunningPlatform;

  beforeAll(async () => {
    platform = await startPlatform({ timeoutMs: 150_000, env: { LOG_LEVEL: 'info', RATE_LIMITS_ENABLED: 'false', ABUSE_PROTECTION_ENABLED: 'false' } });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
  });

  async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; !check(); await sleep(100)) if (Date.now() > deadline) throw new Error('timed out');
  }

  it('a settlement a SIGKILLed chat replica still owed is sent by its successor and charged once', async () => {
    const chat = chatRequest(platform.apiUrl, platform.adminKey, false);
    // the gateway takes a credit lease: the next requests are admitted without billing
    expect((await chat(AbortSignal.timeout(20_000))).status).toBe(200);

    // billing goes down (the supervisor restarts it within seconds): the settlement's attempts fail meanwhile
    const billing = killService(platform, 'billing');
    const served = await chat(AbortSignal.timeout(20_000));
    expect([served.status, served.complete]).toEqual([200, true]);
    await sleep(200);
    const dead = killService(platform, 'chat');
    await until(() => servicePids(platform, 'chat').some((pid) => pid !== dead));
    await until(() => servicePids(platform, 'billing').some((pid) => pid !== billing));

    let charge: RequestCharge | undefined;
    for (const deadline = Date.now() + 45_000; Date.now() < deadline && !(charge && charge.netNano > 0n); await sleep(500)) {
      charge = (await chargesByRequest(platform.env.BILLING_DATABASE_URL)).get(served.requestId!);
    }
    expect(charge).toMatchObject({ reservations: 1, held: 0 });
    expect(charge!.netNano).toBeGreaterThan(0n);
    expect(platform.output()).toContain('settling what a stopped process still owed billing');
  }, 120_000);
});
