import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BILLING, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { fakeRpc } from '@svc/messaging/testing';
import { BACKLOG_MAX_AGE_MS, BACKLOG_RETRY_MS, BillingSettler, promptTokensOnAbort } from './billing-settler';
import { SettlementJournal } from './settlement-journal';

/** Records every settlement sent (flattened) and every message (`batches`: the item count of each). */
function settleRpc(failures: ErrorCode[]) {
  const sent: SettleRequest[] = [];
  const batches: number[] = [];
  const { rpc } = fakeRpc({
    [BILLING.SETTLE_BATCH]: (request) => {
      sent.push(...request.items);
      batches.push(request.items.length);
      const code = failures.shift();
      if (code) throw new DomainError(code, 'failed');
      return { results: request.items.map(() => ({ status: 'settled' as const, currency: 'USD' as const, chargedNano: '1' })) };
    },
  });
  return { rpc, sent, batches };
}

const logger = createLogger('chat-test', 'silent');

describe('BillingSettler', () => {
  it('sends the exact usage for the reservation, as the service', async () => {
    const { rpc, sent } = settleRpc([]);
    const settler = new BillingSettler(rpc, logger);
    settler.settle({ reservationId: 'r1' }, 'req', 'completed', { kind: 'text', promptTokens: 5, completionTokens: 7 }, 12);
    await settler.drain();
    expect(sent).toEqual([
      { reservationId: 'r1', source: 'service', outcome: 'completed', usage: { kind: 'text', promptTokens: 5, completionTokens: 7 }, executionMs: 12 },
    ]);
  });

  it('settles around an engine call: completed with the usage it charged, released when it fails first; work gets its start time', async () => {
    const { rpc, sent } = settleRpc([]);
    const settler = new BillingSettler(rpc, logger);
    const usage = { kind: 'tts' as const, characters: 12 };
    await expect(settler.around({ reservationId: 'ok' }, 'req', async (charge) => (charge(usage), 'done'))).resolves.toBe('done');
    await expect(
      settler.around({ reservationId: 'late' }, 'req', async (charge) => {
        charge(usage);
        throw new Error('delivery failed after the engine ran');
      }),
    ).rejects.toThrow('delivery failed');
    await expect(
      settler.around({ reservationId: 'early' }, 'req', async () => {
        throw new Error('engine failed');
      }),
    ).rejects.toThrow('engine failed');
    await settler.around({ reservationId: 'silent' }, 'req', async () => 'no charge');
    const before = Date.now();
    const started = await settler.around({ reservationId: 'timed' }, 'req', async (charge, at) => (charge(usage), at));
    expect(started).toBeGreaterThanOrEqual(before);
    expect(started).toBeLessThanOrEqual(Date.now());
    await settler.drain();
    expect(sent.map((r) => [r.reservationId, r.outcome, r.usage])).toEqual([
      ['ok', 'completed', usage],
      ['late', 'completed', usage],
      ['early', 'failed', null],
      ['silent', 'failed', null],
      ['timed', 'completed', usage],
    ]);
  });

  it('retries while billing is unreachable, and stops on a permanent refusal', async () => {
    const transient = settleRpc([ErrorCode.ServiceUnavailable, ErrorCode.Timeout]);
    const a = new BillingSettler(transient.rpc, logger);
    a.settle({ reservationId: 'r1' }, 'req', 'cut', null);
    await a.drain();
    expect(transient.sent).toHaveLength(3);
    const permanent = settleRpc([ErrorCode.Validation]);
    const b = new BillingSettler(permanent.rpc, logger);
    b.settle({ reservationId: 'r2' }, 'req', 'cut', null);
    await b.drain();
    expect(permanent.sent).toHaveLength(1);
  });

  describe('a billing outage longer than the quick retries', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('keeps the settlement in a backlog and settles it once billing is back (billing charges a late settlement)', async () => {
      const down = Array<ErrorCode>(12).fill(ErrorCode.ServiceUnavailable);
      const { rpc, sent } = settleRpc(down);
      const settler = new BillingSettler(rpc, logger);
      settler.settle({ reservationId: 'r1' }, 'req', 'completed', { kind: 'tts', characters: 3 });
      await jest.advanceTimersByTimeAsync(30_000); // 8 quick tries, then one from the backlog
      expect(sent).toHaveLength(9);
      expect(settler.backlogSize).toBe(1);
      await jest.advanceTimersByTimeAsync(4 * BACKLOG_RETRY_MS); // 3 more fail, the 13th call gets through
      expect(sent).toHaveLength(13);
      expect(sent.every((r) => r.reservationId === 'r1' && r.outcome === 'completed')).toBe(true);
      expect(settler.backlogSize).toBe(0);
      await jest.advanceTimersByTimeAsync(5 * BACKLOG_RETRY_MS);
      expect(sent).toHaveLength(13); // settled once: nothing more is sent
    });

    it('gives up after an hour, and tries the backlog once more at shutdown', async () => {
      const { rpc, sent } = settleRpc(Array<ErrorCode>(1_000).fill(ErrorCode.ServiceUnavailable)); // down for good
      const settler = new BillingSettler(rpc, logger);
      settler.settle({ reservationId: 'old' }, 'req', 'failed', null);
      await jest.advanceTimersByTimeAsync(BACKLOG_MAX_AGE_MS + 2 * BACKLOG_RETRY_MS);
      expect(settler.backlogSize).toBe(0);
      const tries = sent.length;
      await jest.advanceTimersByTimeAsync(10 * BACKLOG_RETRY_MS);
      expect(sent).toHaveLength(tries);

      settler.settle({ reservationId: 'young' }, 'req', 'failed', null);
      await jest.advanceTimersByTimeAsync(30_000);
      expect(settler.backlogSize).toBe(1);
      const before = sent.length;
      const stopping = settler.onApplicationShutdown();
      await jest.advanceTimersByTimeAsync(6_000);
      await stopping;
      expect(sent.length).toBe(before + 1);
    });
  });

  it('sends the settlements of one moment in one message, and a leased request with its lease', async () => {
    const { rpc, sent, batches } = settleRpc([]);
    const settler = new BillingSettler(rpc, logger);
    const lease = {
      leaseId: 'l1',
      currency: 'USD' as const,
      heldNano: '100',
      requestId: 'a',
      model: { id: 'm', name: 'm', type: 'text' },
      pricing: {},
      worstCase: { kind: 'tts' as const, characters: 9 },
    };
    settler.settle({ reservationId: 'a', lease }, 'a', 'completed', { kind: 'tts', characters: 3 });
    settler.settle({ reservationId: 'b' }, 'b', 'failed', null);
    await settler.drain();
    expect(batches).toEqual([2]);
    expect(sent.map((r) => [r.reservationId, r.lease?.leaseId])).toEqual([
      ['a', 'l1'],
      ['b', undefined],
    ]);
  });

  it('gathers the settlements of its window (one request after another, as at one connection) in one message; window 0 sends each at once', async () => {
    const gathered = settleRpc([]);
    const settler = new BillingSettler(gathered.rpc, logger, null, 60);
    for (const id of ['a', 'b', 'c']) {
      settler.settle({ reservationId: id }, id, 'failed', null);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(gathered.batches).toEqual([]);
    await new Promise((r) => setTimeout(r, 80));
    expect(gathered.batches).toEqual([3]);

    const each = settleRpc([]);
    const immediate = new BillingSettler(each.rpc, logger, null, 0);
    immediate.settle({ reservationId: 'x' }, 'x', 'failed', null);
    immediate.settle({ reservationId: 'y' }, 'y', 'failed', null);
    await immediate.drain();
    expect(each.batches).toEqual([1, 1]);
  });

  it('sends the settlements of a refused batch one by one, so one bad settlement loses no other', async () => {
    const { rpc, sent, batches } = settleRpc([ErrorCode.Validation, ErrorCode.Validation]);
    const settler = new BillingSettler(rpc, logger);
    settler.settle({ reservationId: 'bad' }, 'a', 'completed', null);
    settler.settle({ reservationId: 'good' }, 'b', 'failed', null);
    await settler.drain();
    expect(batches).toEqual([2, 1, 1]);
    expect(sent.map((r) => r.reservationId)).toEqual(['bad', 'good', 'bad', 'good']);
  });

  it('does nothing for a request without a reservation', async () => {
    const { rpc, sent } = settleRpc([]);
    const settler = new BillingSettler(rpc, logger);
    settler.settle(undefined, 'req', 'completed', null);
    await settler.drain();
    expect(sent).toEqual([]);
  });

  describe('with a settlement journal', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'settler-journal-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const journal = () => SettlementJournal.open(dir, 'chat', logger)!;

    it('what a process died owing is sent by the next process of the service, once', async () => {
      // billing never answers this one: it dies (SIGKILL) with both settlements unsent
      const { rpc: hung } = fakeRpc({ [BILLING.SETTLE_BATCH]: () => new Promise(() => undefined) });
      const dying = new BillingSettler(hung, logger, journal());
      dying.settle({ reservationId: 'a' }, 'req-a', 'completed', { kind: 'text', promptTokens: 1, completionTokens: 2 });
      dying.settle({ reservationId: 'b' }, 'req-b', 'failed', null);
      // its file, as a process that is gone leaves it (another pid)
      const [file] = readdirSync(dir);
      renameSync(path.join(dir, file), path.join(dir, file.replace(/^chat\.\d+-\d+\./, 'chat.4194999-1.')));

      const { rpc, sent } = settleRpc([]);
      const next = new BillingSettler(rpc, logger, journal());
      next.onModuleInit();
      await next.drain();
      expect(sent.map((r) => [r.reservationId, r.outcome])).toEqual([
        ['a', 'completed'],
        ['b', 'failed'],
      ]);
      // delivered: a clean stop leaves nothing to send again
      await next.onApplicationShutdown();
      expect(readdirSync(dir).filter((f) => !f.includes(`.${process.pid}-`))).toEqual([]);
      const again = settleRpc([]);
      new BillingSettler(again.rpc, logger, journal()).onModuleInit();
      expect(again.sent).toEqual([]);
    });

    it('a settlement billing refuses for good is not sent again by the next process', async () => {
      const { rpc } = settleRpc([ErrorCode.Validation]);
      const settler = new BillingSettler(rpc, logger, journal());
      settler.settle({ reservationId: 'bad' }, 'req', 'completed', null);
      await settler.drain();
      await settler.onApplicationShutdown();
      expect(readdirSync(dir)).toEqual([]);
    });
  });

  it('reads a prompt count an engine attaches to its abort error, if any', () => {
    expect(promptTokensOnAbort(Object.assign(new Error('aborted'), { promptTokens: 42 }))).toBe(42);
    expect(promptTokensOnAbort(new Error('aborted'))).toBeNull();
    expect(promptTokensOnAbort(undefined)).toBeNull();
  });
});
